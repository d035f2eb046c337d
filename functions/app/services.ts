/**
 * The composition root of a process: the adapters and use cases, built once at cold start and shared by every handler
 * in it. The order steps with the generator are built apart (step-services.ts), so that the API's functions carry no
 * generator beyond the deterministic prompt planner that prices quick orders.
 */
import { lookup } from 'node:dns/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { OrderCreation } from '../core/create-order.ts';
import { OrderQuoting } from '../core/quote-order.ts';
import { checkLink, orderLinks } from '../core/links.ts';
import { downloadLocation } from '../core/downloads.ts';
import { deliver, type DeliveryPorts, handOver } from '../core/deliveries.ts';
import type { OrderEvent } from '../core/ports.ts';
import { DeliveryEvents, DeliveryWorkflow } from '../adapters/deliveries.ts';
import { WebhookSender } from '../adapters/webhook-sender.ts';
import { Accounts } from '../adapters/accounts.ts';
import { aws } from '../adapters/aws.ts';
import { config } from '../adapters/config.ts';
import { metrics } from '../adapters/metrics.ts';
import { LinkKeyStore } from '../adapters/secrets.ts';
import { OrderFiles } from '../adapters/files.ts';
import { Orders } from '../adapters/orders.ts';
import { Quotes } from '../adapters/quotes.ts';
import { StepFunctionsWorkflow } from '../adapters/workflow.ts';
import { Webhooks } from '../adapters/webhooks.ts';
import { deliverableFromEnv } from '../generator/deliverable.ts';
import { planFromPrompt } from '../generator/planner.ts';
import { enqueueForAdmission, RenderQueue } from '../core/capacity.ts';
import { QueueViews } from '../core/eta.ts';
import { type EndedExecution, RENDER_INVOCATION_SECONDS, type RecoveryPorts, recoverEnded, sweep } from '../core/sweep.ts';
import { AuditCursors } from '../adapters/audit.ts';
import type { Order } from '../core/orders.ts';
import { isTransient } from '../adapters/transient.ts';
import { cancel, type CancelPorts, DEADLINE_EXCEEDED } from '../core/cancel-order.ts';
import { Capacity, QueueReader, StepFunctionsWakeup } from '../adapters/capacity.ts';
import type { UrlPolicy } from '../core/webhook-url.ts';

export const logger = new Logger({ serviceName: 'video-service' });

let built: ReturnType<typeof build> | undefined;

function build() {
  const cfg = config();
  const { ddb, s3, sfn } = aws();
  const accounts = new Accounts(ddb, cfg.tableName);
  const orders = new Orders(ddb, cfg.tableName);
  const workflow = new StepFunctionsWorkflow(sfn, () => cfg.orderStateMachineArn, cfg.reviewDeadlineSeconds);

  const urlPolicy: UrlPolicy = {
    allowPrivate: cfg.webhookAllowPrivate,
    resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  };
  const files = new OrderFiles(s3, cfg.bucketName);
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
  const announce = (event: OrderEvent) =>
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
  const capacity = new Capacity(ddb, cfg.tableName);
  const wakeup = new StepFunctionsWakeup(sfn, (orderId, slot) => workflow.startAdmitted(orderId, slot));
  const queue = new RenderQueue({ store: capacity, wakeup, ...cfg.capacity, now: () => new Date() });
  // Until an order has been measured: the typical order's seconds spread over a typical 30-second video.
  const reader = new QueueReader(capacity, { ...cfg.capacity, defaultSecondsPerVideoSecond: cfg.throughput.orderSeconds / 30 });
  const snapshots = new QueueViews(() => reader.read(), cfg.queueSnapshotMs);
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
    renderSeconds: RENDER_INVOCATION_SECONDS,
  } satisfies RecoveryPorts;
  const cursor = new AuditCursors(ddb, cfg.tableName);
  const quotes = new Quotes(ddb, cfg.tableName);
  const asking = { planPrompt: planFromPrompt, deliverable: deliverableFromEnv() };
  const quoting = new OrderQuoting({ ...asking, quotes, queue: snapshots, prices: cfg.prices });
  const creation = new OrderCreation({
    ...asking,
    orders,
    quotes,
    queue: snapshots,
    workflow,
    admission: { enqueue: (order) => enqueueForAdmission(queue, orders, order, () => new Date()) },
    limits: cfg.limits,
    prices: cfg.prices,
    throughput: cfg.throughput,
    metrics,
    log: logger,
  });
  return {
    config: cfg,
    queue,
    snapshots,
    sweep: (graceSeconds = cfg.sweepGraceSeconds, full = false) =>
      sweep(
        { ...recovery, queue, cursor, budget: cfg.sweepBudget, graceSeconds, reviewWaitSeconds: cfg.reviewDeadlineSeconds, isBusy: isTransient, log: logger },
        { full },
      ),
    recover: (ended: EndedExecution) => recoverEnded(recovery, ended),
    cancellation,
    links,
    /** The download route's answer to a link: the presigned URL of the file (or 403, 404). */
    download: (orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date) =>
      downloadLocation({ verify: links.verify, files, retentionDays: cfg.retentionDays }, orderId, name, expires, sig, now),
    webhooks,
    sender: deliveryPorts.sender,
    deliveries: { events, workflow: deliveryWorkflow, announce, deliver: (orderId: string, eventId: string) => deliver(deliveryPorts, orderId, eventId) },
    urlPolicy,
    accounts,
    orders,
    files,
    workflow,
    limits: cfg.limits,
    throughput: cfg.throughput,
    quotes,
    quoting,
    creation,
  };
}

export const services = () => (built ??= build());
