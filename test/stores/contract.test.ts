/**
 * The store contract: one set of scenarios per port, run against every implementation the factory builds (the
 * in-memory ports of the domain tests, and the DynamoDB and S3 adapters on the local stores), so the two cannot
 * drift apart unnoticed. A scenario takes fresh stores; where an implementation is known to differ, its `known`
 * entry says why and the scenario is reported as todo there.
 */
import { after, before, describe } from 'node:test';
import { assetFilesContract, assetsContract } from './assets.ts';
import { capacityContract } from './capacity.ts';
import { eventsContract, filesContract, webhooksContract } from './events.ts';
import type { KnownDrifts } from './fixtures.ts';
import { IMPLEMENTATIONS } from './implementations.ts';
import { ordersContract } from './orders.ts';
import { spendContract } from './spend.ts';

/** Scenarios an implementation is known to fail, by implementation and name: each one a drift reported, not yet decided. */
/** A scenario an implementation is known to fail, with why (reported as todo); none today. */
const KNOWN: Record<string, KnownDrifts> = {};

for (const impl of IMPLEMENTATIONS) {
  describe(impl.name, () => {
    before(() => impl.start());
    after(() => impl.stop());
    const make = () => impl.make();
    const known = KNOWN[impl.name] ?? {};
    describe('orders and accounts', () => ordersContract(make, known));
    describe('spend controls', () => spendContract(make, known));
    describe('render queue', () => capacityContract(make, known));
    describe('events and deliveries', () => eventsContract(make, known));
    describe('webhooks', () => webhooksContract(make, known));
    describe('files', () => filesContract(make, known));
    describe('assets', () => assetsContract(make, known));
    describe('asset files', () => assetFilesContract(make, known));
  });
}
