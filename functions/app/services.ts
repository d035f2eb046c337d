/**
 * The composition root of a process: the adapters and use cases, built once at cold start and shared by every handler
 * in it. It hands out use cases, each an entry's one call (and what the middleware needs: the key's account, the
 * request's count, the configuration); the stores only under `stores`, for tests and operators. The order steps with
 * the generator are built apart (step-services.ts), so that the API's functions carry no generator beyond the
 * deterministic prompt planner that prices quick orders.
 */
import { lookup } from 'node:dns/promises';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { type CreateOrderInput, OrderCreation, placeBotOrder } from '../core/create-order.ts';
import { OrderQuoting } from '../core/quote-order.ts';
import type { Account } from '../core/pricing.ts';
import { checkLink, orderLinks } from '../core/links.ts';
import { downloadLocation } from '../core/downloads.ts';
import { deliver, type DeliveryPorts, handOver, recentAttempts, type ResendRequest, resendToWebhook } from '../core/deliveries.ts';
import type { Announce } from '../core/ports.ts';
import { listOrderRecords, type ListQuery } from '../core/list-orders.ts';
import { RENDER_INVOCATION_SECONDS, type StepPorts } from '../core/order-steps.ts';
import { readOrder } from '../core/read-order.ts';
import type { ReviewDecision } from '../contract/review.ts';
import { type ReviewPorts, reviewOrder } from '../core/review.ts';
import { transactionsPage } from '../core/transactions.ts';
import { setBalanceAlert } from '../core/balance.ts';
import { deleteWebhook, pingWebhook, registerWebhook, rotateSecret } from '../core/webhooks.ts';
import { DeliveryEvents, DeliveryWorkflow } from '../adapters/deliveries.ts';
import { WebhookSender } from '../adapters/webhook-sender.ts';
import { Accounts } from '../adapters/accounts.ts';
import { aws } from '../adapters/aws.ts';
import { config } from '../adapters/config.ts';
import { metrics } from '../adapters/metrics.ts';
import { LinkKeyStore } from '../adapters/secrets.ts';
import { AssetObjects, OrderFiles } from '../adapters/files.ts';
import { Assets } from '../adapters/assets.ts';
import { InvokedImageCheck } from '../adapters/image-check.ts';
import { type Asset, createAsset, deleteAsset, inspectUpload, listAssets, readOwnAsset, SIGNATURE_BYTES, toAssetView } from '../core/assets.ts';
import { Orders } from '../adapters/orders.ts';
import { Quotes } from '../adapters/quotes.ts';
import { StepFunctionsWorkflow } from '../adapters/workflow.ts';
import { Webhooks } from '../adapters/webhooks.ts';
import { deliverableFromEnv } from '../generator/deliverable.ts';
import { planFromPrompt } from '../generator/planner.ts';
import { type Lane, RenderLanes, RenderQueue, shardCount } from '../core/capacity.ts';
import { QueueViews } from '../core/eta.ts';
import { type EndedExecution, type RecoveryPorts, recoverEnded, sweep } from '../core/sweep.ts';
import { AuditCursors } from '../adapters/audit.ts';
import type { Order } from '../core/orders.ts';
import { isTransient } from '../adapters/transient.ts';
import { cancel, cancelOrder, type CancelPorts, DEADLINE_EXCEEDED } from '../core/cancel-order.ts';
import { closeInError } from '../core/close-order.ts';
import { Capacity, shardReader, StepFunctionsWakeup } from '../adapters/capacity.ts';
import type { UrlPolicy } from '../core/webhook-url.ts';

export const logger = new Logger({ serviceName: 'video-service' });

let built: ReturnType<typeof build> | undefined;

/** A file's first `bytes` bytes. */
async function readStart(path: string, bytes: number): Promise<Uint8Array> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read(new Uint8Array(bytes), 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

function build() {
  const cfg = config();
  const { ddb, s3, sfn, lambda } = aws();
  const accounts = new Accounts(ddb, cfg.tableName);
  const orders = new Orders(ddb, cfg.tableName);
  const workflow = new StepFunctionsWorkflow(sfn, () => cfg.orderStateMachineArn, cfg.reviewDeadlineSeconds);

  const urlPolicy: UrlPolicy = {
    allowPrivate: cfg.webhookAllowPrivate,
    resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  };
  const files = new OrderFiles(s3, cfg.bucketName);
  const assetFiles = new AssetObjects(s3, cfg.bucketName);
  const images = new InvokedImageCheck(lambda, () => cfg.checkAssetFunction);
  const assetPorts = { assets: new Assets(ddb, cfg.tableName), files: assetFiles, images, perDay: cfg.assetsPerDay };
  const webhooks = new Webhooks(ddb, cfg.tableName);
  const events = new DeliveryEvents(ddb, cfg.tableName);
  const deliveryWorkflow = new DeliveryWorkflow(sfn, () => cfg.deliveryStateMachineArn);
  const deliveryPorts: DeliveryPorts = {
    events,
    webhooks,
    sender: new WebhookSender(urlPolicy),
    retryBaseMs: cfg.webhookRetryBaseMs,
    metrics,
    now: () => new Date(),
  };
  // A recorded event handed to delivery (a workflow only for a key with a webhook). A failure leaves the event's
  // pending marker (written with the event): the sweep starts its delivery after its grace, on AWS as on one machine.
  const announce: Announce = (event) =>
    handOver({ webhooks, events, delivery: deliveryWorkflow }, event).then(
      () => undefined,
      (err: unknown) => logger.error('delivery hand-over failed', { eventId: event.id, cause: String(err) }),
    );
  const linkKeys = new LinkKeyStore(cfg);
  const links = {
    issue: async (orderId: string, now: Date) => orderLinks(cfg.publicBaseUrl, (await linkKeys.keys()).current, orderId, now),
    verify: (orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date) =>
      checkLink(linkKeys, orderId, name, expires, sig, now),
  };
  const wakeup = new StepFunctionsWakeup(sfn, (orderId, slot) => workflow.startAdmitted(orderId, slot));
  // Each lane its own queue: the live lane with the stage's slots, the test lane with its few in one shard.
  const lanes = {
    live: { store: new Capacity(ddb, cfg.tableName, 'live'), slots: cfg.capacity.slots, shards: cfg.capacity.shards },
    test: { store: new Capacity(ddb, cfg.tableName, 'test'), slots: cfg.capacity.testSlots, shards: 1 },
  };
  const queue = new RenderLanes({
    live: new RenderQueue({ ...cfg.capacity, ...lanes.live, wakeup, now: () => new Date() }),
    test: new RenderQueue({ ...cfg.capacity, ...lanes.test, wakeup, now: () => new Date() }),
  });
  // Until a lane has measured an order: the typical order's seconds spread over a typical 30-second video.
  const snapshot = (lane: Lane) => {
    const { store, slots, shards } = lanes[lane];
    const settings = { shards: shardCount(slots, shards), botRun: cfg.capacity.botRun, defaultSecondsPerVideoSecond: cfg.throughput.orderSeconds / 30 };
    return new QueueViews(shardReader(store, { slots, shards: settings.shards }), settings, cfg.queueSnapshotMs);
  };
  const snapshots = { live: snapshot('live'), test: snapshot('test') };
  // Ending an order in error outside its workflow (a cancel, a deadline): its refund, slot, event and execution.
  const cancellation: CancelPorts = {
    orders,
    accounts,
    capacity: queue,
    announce,
    metrics,
    now: () => new Date(),
    stopWorkflow: (order) => workflow.stop(order, `order ${order.id}: ${order.error?.code ?? 'canceled'}`),
    log: logger,
  };
  const recovery = {
    orders,
    workflow,
    events,
    delivery: deliveryWorkflow,
    metrics,
    now: () => new Date(),
    expire: async (order: Order) => void (await cancel(cancellation, order, DEADLINE_EXCEEDED)),
  } satisfies RecoveryPorts;
  const cursor = new AuditCursors(ddb, cfg.tableName);
  const quotes = new Quotes(ddb, cfg.tableName);
  const asking = { planPrompt: planFromPrompt, deliverable: deliverableFromEnv() };
  const quoting = new OrderQuoting({ ...asking, quotes, queues: snapshots, prices: cfg.prices });
  const creation = new OrderCreation({
    ...asking,
    orders,
    quotes,
    queues: snapshots,
    workflow,
    admission: queue,
    limits: cfg.limits,
    prices: cfg.prices,
    throughput: cfg.throughput,
    metrics,
    announce,
    log: logger,
    assets: assetPorts,
    close: (order, error) => closeInError(cancellation, order, error),
  });
  const viewing = { orders, links, queues: snapshots };
  const reviewing: ReviewPorts = { orders, workflow, limits: cfg.limits, throughput: cfg.throughput, assets: assetPorts };
  const resending = { webhooks, events, delivery: deliveryWorkflow, resendsPerHour: cfg.resendsPerHour, now: () => new Date() };
  // What the middleware asks of accounts: the key's account, and the request counted in its minute window.
  const keyed: Pick<Accounts, 'authenticate' | 'count' | 'postsIn'> = accounts;
  /** The order steps' ports but the generator and scratch folders, which only the steps' functions build (step-services.ts). */
  const steps: Omit<StepPorts, 'generator' | 'testModeGenerator' | 'scratch'> = {
    orders,
    accounts,
    files,
    assetCopies: assetPorts.files,
    links,
    metrics,
    serviceAddress: cfg.serviceAddress,
    capacity: queue,
    renderSeconds: RENDER_INVOCATION_SECONDS,
    announce,
    now: () => new Date(),
  };
  return {
    config: cfg,
    accounts: keyed,
    orders: {
      read: (userId: string, orderId: string | undefined, now: Date) => readOrder(viewing, userId, orderId, now),
      list: (userId: string, q: ListQuery, now: Date) => listOrderRecords(viewing, userId, q, now),
      cancel: (userId: string, orderId: string | undefined) => cancelOrder(cancellation, userId, orderId),
      review: (userId: string, orderId: string | undefined, decision: ReviewDecision, now: Date) => reviewOrder(reviewing, userId, orderId, decision, now),
    },
    quoting,
    creation: {
      create: (input: CreateOrderInput) => creation.create(input),
      bot: (userId: string, input: Omit<CreateOrderInput, 'account' | 'channel'>) => placeBotOrder({ accounts, creation }, userId, input),
    },
    assets: {
      create: (account: Pick<Account, 'userId' | 'testOf'>, body: Parameters<typeof createAsset>[2], now: Date) => createAsset(assetPorts, account, body, now),
      list: (userId: string, q: { limit: number; starting_after?: string | undefined }, now: Date) => listAssets(assetPorts, userId, q, now),
      read: async (userId: string, assetId: string | undefined, now: Date) => toAssetView(await readOwnAsset(assetPorts, userId, assetId, now)),
      delete: (userId: string, assetId: string | undefined, now: Date) => deleteAsset(assetPorts, userId, assetId, now),
    },
    transactions: (userId: string, q: { limit: number; startingAfter?: string }) => transactionsPage(accounts, userId, q),
    balance: { setAlert: (userId: string, below: number | null, now: Date) => setBalanceAlert({ accounts }, userId, below, now) },
    webhooks: {
      of: (userId: string) => webhooks.ofUser(userId),
      register: (userId: string, url: string, now: Date) => registerWebhook(webhooks, urlPolicy, userId, url, now),
      rotate: (userId: string, webhookId: string | undefined, overlapSeconds: number, now: Date) =>
        rotateSecret(webhooks, userId, webhookId, overlapSeconds, now),
      delete: (userId: string, webhookId: string | undefined) => deleteWebhook(webhooks, userId, webhookId),
      test: (account: Pick<Account, 'userId' | 'testOf'>, webhookId: string | undefined, now: Date) =>
        pingWebhook({ webhooks, sender: deliveryPorts.sender }, account, webhookId, now),
      attempts: (userId: string, webhookId: string | undefined) => recentAttempts({ webhooks, events }, userId, webhookId),
      resend: (account: Pick<Account, 'userId' | 'testOf'>, webhookId: string | undefined, asked: ResendRequest) =>
        resendToWebhook(resending, account, webhookId, asked),
    },
    /** The download route's answer to a link: the presigned URL of the file (or 403, 404). */
    download: (orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date) =>
      downloadLocation({ verify: links.verify, files, retentionDays: cfg.retentionDays }, orderId, name, expires, sig, now),
    /** One delivery attempt of an event (the delivery workflow's step). */
    deliver: (orderId: string, eventId: string) => deliver(deliveryPorts, orderId, eventId),
    steps,
    sweep: (graceSeconds = cfg.sweepGraceSeconds, full = false) =>
      sweep(
        {
          ...recovery,
          queue,
          cursor,
          budget: cfg.sweepBudget,
          graceSeconds,
          reviewWaitSeconds: cfg.reviewDeadlineSeconds,
          assetCopies: assetPorts.files,
          isBusy: isTransient,
          log: logger,
        },
        { full },
      ),
    recover: (ended: EndedExecution) => recoverEnded(recovery, ended),
    /** The first-use check of an upload's version `etag`, decoded in `dir` as the render will open it. */
    checkAsset: async (asset: Pick<Asset, 'id' | 'userId' | 'contentType'>, etag: string, dir: string) => {
      // Loaded on first use, as the renderer is (generator/index.ts): no other function loads ffmpeg's module.
      const { decodeImage } = await import('../generator/image-decode.ts');
      return inspectUpload({ files: assetFiles, decode: decodeImage, readStart: (path) => readStart(path, SIGNATURE_BYTES) }, asset, etag, join(dir, 'upload'));
    },
    /** The stores themselves, for tests and operators (bin/admin.ts, bin/smoke.ts, the local runtime); no handler uses them. */
    stores: { accounts, orders, quotes, files, webhooks, events, workflow, assets: assetPorts },
  };
}

export const services = () => (built ??= build());
