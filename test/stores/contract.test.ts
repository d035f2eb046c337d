/**
 * The store contract: one set of scenarios per port, run against every implementation the factory builds (the
 * in-memory ports of the domain tests, and the DynamoDB and S3 adapters on the local stores), so the two cannot
 * drift apart unnoticed. A scenario takes fresh stores; where an implementation is known to differ, its `known`
 * entry says why and the scenario is reported as todo there.
 */
import { after, before, describe } from 'node:test';
import { capacityContract } from './capacity.ts';
import { eventsContract, filesContract, webhooksContract } from './events.ts';
import type { KnownDrifts } from './fixtures.ts';
import { IMPLEMENTATIONS } from './implementations.ts';
import { ordersContract } from './orders.ts';

/** Scenarios an implementation is known to fail, by implementation and name: each one a drift reported, not yet decided. */
const KNOWN: Record<string, KnownDrifts> = {
  dynamodb: {
    // adapters/orders.ts saveQuote: the quote's own `expiresAt` (ISO) is overwritten by the table's TTL attribute of
    // the same name (epoch seconds), which recordOf then strips: quoteOf answers a StoredQuote without expiresAt. No
    // use case reads it back today (the read's own expiry check uses the TTL), so nothing shows it yet.
    'a quote reads back as it was saved': 'adapter drift: quoteOf loses expiresAt (the TTL attribute shares its name)',
    // adapters/dynamo.ts markersPage: each shard's query asks for `limit` items whatever the page holds already, so a
    // page that crosses shards holds up to 2 * limit - 1 (the audit's walk only peeks, so it reads more than it asked).
    'a page of markers holds at most `limit` items': 'adapter drift: a marker page crossing shards holds more than `limit`',
  },
};

for (const impl of IMPLEMENTATIONS) {
  describe(impl.name, () => {
    before(() => impl.start());
    after(() => impl.stop());
    const make = () => impl.make();
    const known = KNOWN[impl.name] ?? {};
    describe('orders and accounts', () => ordersContract(make, known));
    describe('render queue', () => capacityContract(make, known));
    describe('events and deliveries', () => eventsContract(make, known));
    describe('webhooks', () => webhooksContract(make, known));
    describe('files', () => filesContract(make, known));
  });
}
