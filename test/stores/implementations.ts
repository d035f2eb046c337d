/**
 * The one place the store contract suite (contract.test.ts) builds the implementations it runs against: the in-memory
 * ports of the domain tests, and the DynamoDB and S3 adapters on DynamoDB Local and the local S3 store (loopback). A
 * moved or renamed adapter changes this file only; the scenarios see the port interfaces.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Accounts } from '../../functions/adapters/accounts.ts';
import { Assets } from '../../functions/adapters/assets.ts';
import { Capacity, headOfKey, keyStateOf, takenWait, ticketUpdate, waitItems } from '../../functions/adapters/capacity.ts';
import { transact } from '../../functions/adapters/dynamo.ts';
import { keys } from '../../functions/adapters/keys.ts';
import { DeliveryEvents } from '../../functions/adapters/deliveries.ts';
import { AssetObjects, OrderFiles } from '../../functions/adapters/files.ts';
import { Orders } from '../../functions/adapters/orders.ts';
import { Quotes } from '../../functions/adapters/quotes.ts';
import { Webhooks } from '../../functions/adapters/webhooks.ts';
import type { Asset, AssetFiles, AssetStore } from '../../functions/core/assets.ts';
import type { CapacityStore, NewWait } from '../../functions/core/capacity.ts';
import type { EventStore } from '../../functions/core/deliveries.ts';
import { newUserId } from '../../functions/core/ids.ts';
import type { AccountStore, FileStore, OrderStore } from '../../functions/core/ports.ts';
import type { WebhookStore } from '../../functions/core/webhooks.ts';
import { ensureTable, startDynamoDbLocal } from '../../local/dynamodb.ts';
import { startS3 } from '../../local/s3.ts';
import {
  MemoryAccounts,
  MemoryAssetFiles,
  MemoryAssets,
  MemoryCapacity,
  MemoryEvents,
  MemoryFiles,
  MemoryOrders,
  MemoryQuotes,
  MemoryTable,
  MemoryWebhooks,
} from '../domain/memory.ts';
import type { QuoteStore } from '../../functions/core/quote-order.ts';

/** Every store port the domain uses, by its name in core. */
export interface Stores {
  orders: OrderStore;
  quotes: QuoteStore;
  accounts: AccountStore;
  capacity: CapacityStore;
  events: EventStore;
  webhooks: WebhookStore;
  files: FileStore;
  assets: AssetStore;
  assetFiles: AssetFiles;
  /** A client's PUT of an asset's bytes to its upload URL, with the headers it lists: the status (200, or 412 refused). */
  clientPut(asset: Asset, upload: { url: string; headers: Record<string, string> }, bytes: Uint8Array): Promise<number>;
  /** A user as the operator makes one: an opening balance is the ledger's first entry (a top-up). */
  user(opts?: { balance?: number; trialVideos?: number; plan?: { name: string; heavyPerMonth: number } }): Promise<string>;
  /**
   * A new wait's first write alone (its shard's next ticket, counted); the returned call writes the wait with that
   * ticket. Never called: a ticket counted with no wait, as a wait's transaction that fails or dies after it leaves.
   */
  ticketOnly(w: NewWait): Promise<() => Promise<void>>;
  /** The test-mode account of a live user, as its first test key makes it (linked both ways). */
  testUser(liveUserId: string): Promise<string>;
  /** The operator's top-up and spend limit (bin/admin.ts), beside the ports. */
  operator: { topUp(userId: string, amount: number, now: Date): Promise<void>; setSpendLimit(userId: string, monthly: number | undefined): Promise<void> };
}

export interface Implementation {
  name: string;
  start(): Promise<void>;
  /** Empty stores, apart from every other scenario's. */
  make(): Promise<Stores>;
  stop(): Promise<void>;
}

const memory: Implementation = {
  name: 'in-memory',
  start: async () => undefined,
  make: async () => {
    const t = new MemoryTable();
    const assetFiles = new MemoryAssetFiles();
    const capacity = new MemoryCapacity(t);
    return {
      orders: new MemoryOrders(t),
      quotes: new MemoryQuotes(t),
      accounts: new MemoryAccounts(t),
      capacity,
      ticketOnly: async (w) => capacity.ticketOnly(w),
      events: new MemoryEvents(t),
      webhooks: new MemoryWebhooks(t),
      files: new MemoryFiles(),
      assets: new MemoryAssets(t),
      assetFiles,
      // The URL is the memory store's own: its PUT is the store's upload, which honours the listed If-None-Match.
      clientPut: async (asset, upload, bytes) => (upload.headers['If-None-Match'] === '*' && assetFiles.upload(asset, bytes) ? 200 : 412),
      user: async (o = {}) => {
        const { userId } = t.addAccount({ userId: newUserId(), trialVideosLeft: o.trialVideos ?? 0, ...(o.plan ? { plan: o.plan } : {}) });
        if (o.balance) t.topUp(userId, o.balance);
        return userId;
      },
      testUser: async (live) => {
        const { userId } = t.addAccount({ userId: newUserId(), testOf: live });
        t.accounts.get(live)!.testAccount = userId;
        return userId;
      },
      operator: {
        topUp: async (userId, amount, now) => t.topUp(userId, amount, now),
        setSpendLimit: async (userId, monthly) => {
          const a = t.accounts.get(userId)!;
          if (monthly === undefined) delete a.spendLimit;
          else a.spendLimit = monthly;
        },
      },
    };
  },
  stop: async () => undefined,
};

/** DynamoDB Local in memory and the S3 store in a temporary folder, both on loopback; a table of its own per scenario. */
function dynamodb(): Implementation {
  const BUCKET = 'store-contract';
  let stops: (() => Promise<void>)[] = [];
  let raw: DynamoDBClient;
  let ddb: DynamoDBDocumentClient;
  let s3: S3Client;
  let tables = 0;
  return {
    name: 'dynamodb',
    async start() {
      const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
      stops.push(async () => rmSync(dir, { recursive: true, force: true }));
      const [dynamo, store] = await Promise.all([
        startDynamoDbLocal({ shortLived: true }),
        // Requests made as no function: the bucket's grants are the access test's, not this suite's.
        startS3({ directory: dir, bucket: BUCKET, grants: () => undefined }),
      ]);
      stops.push(dynamo.stop, store.stop);
      const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
      raw = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials });
      // As functions/adapters/aws.ts builds its clients.
      ddb = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
      s3 = new S3Client({
        endpoint: store.endpoint,
        region: 'us-east-1',
        credentials,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      stops.push(async () => {
        raw.destroy();
        s3.destroy();
      });
    },
    async make() {
      const table = `contract-${++tables}`;
      await ensureTable(raw, table);
      const accounts = new Accounts(ddb, table);
      return {
        orders: new Orders(ddb, table),
        quotes: new Quotes(ddb, table),
        accounts,
        capacity: new Capacity(ddb, table),
        // The adapter's own two writes of a new wait (Capacity.record), the second left to the caller.
        ticketOnly: async (w) => {
          const read = await ddb.send(new GetCommand({ TableName: table, Key: keys.queueKey(w.shard, w.channel, w.key), ConsistentRead: true }));
          const kx = keyStateOf(read.Item);
          const out = await ddb.send(new UpdateCommand(ticketUpdate(table, w.shard, w.channel, 'live', headOfKey(kx))));
          const waiter = takenWait(w, kx, out.Attributes!);
          return async () => {
            const cancelled = await transact(ddb, waitItems(table, waiter, kx));
            if (cancelled) throw cancelled.error;
          };
        },
        events: new DeliveryEvents(ddb, table),
        webhooks: new Webhooks(ddb, table),
        files: new OrderFiles(async () => s3, BUCKET),
        assets: new Assets(ddb, table),
        assetFiles: new AssetObjects(async () => s3, BUCKET),
        clientPut: async (_asset, upload, bytes) => {
          // fetch sets Content-Length from the body.
          const { 'Content-Length': _, ...headers } = upload.headers;
          const res = await fetch(upload.url, { method: 'PUT', headers, body: new Uint8Array(bytes) });
          await res.arrayBuffer();
          return res.status;
        },
        user: async (o = {}) =>
          (
            await accounts.createUser({
              balance: o.balance ?? 0,
              trialVideos: o.trialVideos ?? 0,
              ...(o.plan ? { plan: o.plan } : {}),
              now: new Date(),
            })
          ).userId,
        testUser: async (live) => (await accounts.issueTestKey(live, new Date())).testAccountId,
        operator: {
          topUp: async (userId, amount, now) => void (await accounts.topUp(userId, amount, now)),
          setSpendLimit: (userId, monthly) => accounts.setSpendLimit(userId, monthly),
        },
      };
    },
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      stops = [];
    },
  };
}

export const IMPLEMENTATIONS: Implementation[] = [memory, dynamodb()];
