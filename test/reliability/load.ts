/**
 * Money under load, with faults. `npm start`'s service runs as its own process; users order videos through the
 * official JavaScript client (retries, Retry-After, one Idempotency-Key per creation) and repeat some creations on
 * purpose with the same key, at once or later; director-mode orders are approved, regenerated or left to lapse; a
 * share of orders fails in the generator. Meanwhile the service is killed outright at random moments and started
 * again, DynamoDB Local is killed once (the service starts it again), and the webhook receiver goes away for a while.
 * Afterwards, for every user: balance = top-ups - charges + refunds in the ledger, each entry's balance after it is
 * the previous one's plus its amount, every order is done or error,
 * none is charged or refunded twice, every order a client was told of exists and no other, and every event was
 * delivered or marked dropped.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, VideoClient, verifyWebhook, type CreationResponse, type Order } from '../../clients/js/src/index.ts';
import { freePort } from '../../local/ports.ts';
import { readRuntime } from '../../local/runtime-file.ts';
import { seeded } from './hostile.ts';
import { undeliveredEvents } from '../support/undelivered.ts';
import { javaPidsOf, QUICK_JAVA, startService, stopService, type Service } from '../support/service.ts';

export interface LoadScale {
  name: string;
  users: number;
  creations: number;
  seconds: number;
  kills: number;
  receiverDownSeconds: number;
  /** Each user's top-up: it bounds how many orders are accepted, so how many are rendered. */
  balance: number;
  /** The share of creations the operators' bot places (its channel: not held to a key's limits, first in the queue). */
  botShare: number;
  /** How long orders may take to settle after the load. */
  settleMinutes: number;
  /** The share of created orders their client cancels a moment later, and of explicit API orders placed with a quote. */
  cancelShare: number;
  quoteShare: number;
}

export const SCALES: Record<'small' | 'full', LoadScale> = {
  small: {
    name: 'small',
    users: 3,
    creations: 60,
    seconds: 8,
    kills: 1,
    receiverDownSeconds: 5,
    balance: 200,
    botShare: 0.2,
    settleMinutes: 15,
    cancelShare: 0.5,
    quoteShare: 0.5,
  },
  full: {
    name: 'full',
    users: 20,
    creations: 1000,
    seconds: 120,
    kills: 10,
    receiverDownSeconds: 60,
    balance: 3000,
    botShare: 0.15,
    settleMinutes: 40,
    cancelShare: 0.1,
    quoteShare: 0.2,
  },
};

export interface LoadReport {
  scale: string;
  seed: number;
  seconds: { load: number; settle: number; total: number };
  creations: {
    attempted: number;
    created: number;
    /** Of those, placed by the bot. */
    bot: number;
    replayed: number;
    refused: Record<string, number>;
    repeatedOnPurpose: number;
    clientRetries: number;
    unansweredRetried: number;
    /** Creations that passed a quote_id (each charged exactly the quote), and quotes no order used. */
    quoted: number;
    quotesUnused: number;
  };
  cancels: { asked: number; canceled: number; refused: Record<string, number> };
  orders: { total: number; done: number; error: number; refunded: number; reviews: Record<string, number>; errors: Record<string, number> };
  faults: { serviceKills: number; restartSeconds: number[]; dynamoRestarts: number; receiverDownSeconds: number };
  webhooks: { events: number; delivered: number; dropped: number; received: number; badSignatures: number };
  money: { users: number; toppedUp: number; charged: number; refunded: number; balances: number };
  violations: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service, with its data on disk, restarted on the same ports after each kill. */
class ServiceUnderTest {
  service!: Service;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'video-service-load-'));
  restartSeconds: number[] = [];
  constructor(
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}

  async start() {
    const started = Date.now();
    this.service = await startService(this.port, this.dataDir, this.env);
    return (Date.now() - started) / 1000;
  }

  /** SIGKILL: no shutdown code runs; the Java child goes with its pipe. Then start again. */
  async killAndRestart() {
    const exited = new Promise((r) => this.service.child.once('exit', r));
    this.service.child.kill('SIGKILL');
    await exited;
    for (const end = Date.now() + 30_000; this.javaPids().length > 0 && Date.now() < end; ) await sleep(100);
    this.restartSeconds.push(await this.start());
  }

  /** DynamoDB Local's Java process (not its shell), killed outright; the service starts it again. */
  killDynamo(): boolean {
    const pids = this.javaPids();
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    return pids.length > 0;
  }

  javaPids(): number[] {
    return javaPidsOf(this.dataDir);
  }

  async stop() {
    if (this.service?.child.exitCode === null) await stopService(this.service.child);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A webhook receiver on a fixed port that can be taken down and brought back. */
class Receiver {
  private server: Server | undefined;
  received = new Map<string, number>();
  badSignatures = 0;
  secrets = new Map<string, string>();
  constructor(readonly port: number) {}

  async up() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', async () => {
          const user = req.url!.split('/').at(-1)!;
          const secret = this.secrets.get(user);
          if (
            !secret ||
            !(await verifyWebhook(Buffer.concat(chunks), req.headers, secret).then(
              () => true,
              () => false,
            ))
          ) {
            this.badSignatures++;
            return void res.writeHead(401).end();
          }
          const id = String(req.headers['x-service-event-id']);
          this.received.set(id, (this.received.get(id) ?? 0) + 1);
          res.writeHead(204).end();
        });
    });
    await new Promise<void>((ok) => this.server!.listen(this.port, '127.0.0.1', ok));
  }

  async down() {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

export async function runLoad(scale: LoadScale, seed: number, log: (line: string) => void = () => undefined): Promise<LoadReport> {
  const random = seeded(seed);
  const started = Date.now();
  const [port, dynamoPort, receiverPort] = [await freePort(), await freePort(), await freePort()];
  const receiver = new Receiver(receiverPort);
  await receiver.up();
  const sut = new ServiceUnderTest(port, {
    DYNAMODB_PORT: String(dynamoPort),
    // Limits as a busy client meets them, with the per-minute POST limit raised so the run is about money, not waits,
    // and the GET limit lifted: the reviewer and the settling loop read every order again and again, as no client does.
    LIMIT_POSTS_PER_MINUTE: '600',
    LIMIT_GETS_PER_MINUTE: '1000000',
    LIMIT_ACTIVE_TASKS: '10',
    ORDER_SECONDS_ESTIMATE: '1',
    GENERATOR_FAIL: 'random:0.2',
    REVIEW_DEADLINE_SECONDS: '15',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    WEBHOOK_RETRY_BASE_MS: '2000',
    // The small run (in npm test) sweeps every 15 s: what a kill left behind is picked up without a minute's wait. Its
    // DynamoDB Local lives a minute, so it gets Java's quick compiler; the full run's lives long enough for the full JIT.
    ...(scale.name === 'small' ? { SWEEP_SECONDS: '15', SWEEP_GRACE_SECONDS: '15', ...QUICK_JAVA } : {}),
  });
  const report: LoadReport = {
    scale: scale.name,
    seed,
    seconds: { load: 0, settle: 0, total: 0 },
    creations: {
      attempted: 0,
      created: 0,
      bot: 0,
      replayed: 0,
      refused: {},
      repeatedOnPurpose: 0,
      clientRetries: 0,
      unansweredRetried: 0,
      quoted: 0,
      quotesUnused: 0,
    },
    cancels: { asked: 0, canceled: 0, refused: {} },
    orders: { total: 0, done: 0, error: 0, refunded: 0, reviews: { approve: 0, regen: 0, lapse: 0 }, errors: {} },
    faults: { serviceKills: 0, restartSeconds: sut.restartSeconds, dynamoRestarts: 0, receiverDownSeconds: scale.receiverDownSeconds },
    webhooks: { events: 0, delivered: 0, dropped: 0, received: 0, badSignatures: 0 },
    money: { users: scale.users, toppedUp: 0, charged: 0, refunded: 0, balances: 0 },
    violations: [],
  };
  const violation = (v: string) => {
    report.violations.push(v);
    log(`VIOLATION ${v}`);
  };
  try {
    await sut.start();
    // The harness reads the data through the service's own adapters, on DynamoDB Local's fixed port.
    Object.assign(process.env, readRuntime(sut.dataDir)!.env);
    const { services } = await import('../../functions/app/services.ts');
    const { accounts, orders } = services().stores;
    // The bot's entry, run in this process as the operator CLI runs it (on AWS: the function the bot's role invokes).
    // Its clients keep the first start's Step Functions address, which a restart moves: after the first kill the
    // bot's orders fail their StartExecution after the charge, and the recovery sweep starts them.
    const { handler: placeOrder } = await import('../../functions/bot/place-order.ts');
    const { lambdaContext } = await import('../../local/gateway.ts');
    const baseUrl = `http://127.0.0.1:${port}/v1`;

    const users: { userId: string; client: VideoClient; ids: Set<string> }[] = [];
    for (let i = 0; i < scale.users; i++) {
      const { userId, apiKey } = await accounts.createUser({ balance: scale.balance, trialVideos: 0, now: new Date() });
      report.money.toppedUp += scale.balance;
      const client = new VideoClient({ baseUrl, apiKey, maxRetries: 10, baseDelayMs: 250, onRetry: () => report.creations.clientRetries++ });
      const hook = await client.createWebhook(`http://127.0.0.1:${receiverPort}/hook/${userId}`);
      receiver.secrets.set(userId, hook.secret);
      users.push({ userId, client, ids: new Set() });
    }

    // Orders made with a quote: the quote's price, which the order must be charged exactly.
    const quotedCost = new Map<string, number>();
    // Orders a cancel was answered 200 for: they must end in error `canceled`.
    const canceledIds = new Set<string>();
    // One creation: quick, explicit or director mode; some repeated with the same key, at once or after the answer.
    const create = async (u: (typeof users)[number], first: boolean) => {
      const key = randomUUID();
      const roll = random();
      const subject = Math.floor(random() * 100);
      const viaBot = random() < scale.botShare;
      // The bot answers an unreachable store with service_unavailable: like no answer, it sends the same key again.
      const byBot = async (): Promise<CreationResponse> => {
        const answer = await placeOrder(
          {
            user_id: u.userId,
            ...(roll < 0.5 ? { prompt: `A 10 second video about bot load ${subject}` } : { topic: `Bot load ${subject}`, params: { duration_seconds: 10 } }),
            ...(roll > 0.8 ? { director: true } : {}),
            idempotency_key: key,
          },
          lambdaContext('place-order'),
        );
        if (!('error' in answer)) return answer;
        if (answer.error.code === 'service_unavailable') throw new Error(answer.error.message);
        throw new ApiError(0, answer.error.code as never, answer.error.message);
      };
      // A fifth of the API's explicit orders are quoted first and placed with their quote_id (a quote charges nothing);
      // some carry a max_cost.
      const params = { topic: `Load ${subject}`, duration_seconds: 10, director_mode: roll > 0.8 };
      const quoted = !viaBot && roll >= 0.5 && random() < scale.quoteShare ? await u.client.quote(params).catch(() => undefined) : undefined;
      const maxCost = !viaBot && random() < 0.1 ? { max_cost: 150 } : {};
      // A repeat is the same request with the same key (a different one would rightly be refused).
      const once = (): Promise<CreationResponse> =>
        viaBot
          ? byBot()
          : roll < 0.5
            ? u.client.createQuick({ prompt: `A 10 second video about load test ${subject}`, ...maxCost }, { idempotencyKey: key })
            : u.client.createVideo({ ...params, ...maxCost, ...(quoted ? { quote_id: quoted.quote_id } : {}) }, { idempotencyKey: key });
      // As the spec's guidance asks of a client: when no answer comes (the service is down longer than the client's
      // own retries), send the same creation with the same key again, until it is answered.
      const call = async (): Promise<CreationResponse> => {
        for (const end = Date.now() + 10 * 60_000; ; ) {
          try {
            return await once();
          } catch (err) {
            if (err instanceof ApiError || Date.now() > end) throw err;
            report.creations.unansweredRetried++;
            await sleep(2000);
          }
        }
      };
      // Each user's first creation is sent twice at once, so that every run races two requests with one key.
      const repeat = first ? 0 : random();
      report.creations.attempted++;
      const answers = await Promise.allSettled(repeat < 0.1 ? [call(), call()] : [call()]);
      if (repeat >= 0.1 && repeat < 0.15) answers.push(...(await Promise.allSettled([call()])));
      if (answers.length > 1) report.creations.repeatedOnPurpose++;
      const ids = new Set<string>();
      for (const a of answers) {
        if (a.status === 'fulfilled') {
          if (ids.has(a.value.id)) report.creations.replayed++;
          ids.add(a.value.id);
        } else if (a.reason instanceof ApiError) {
          report.creations.refused[a.reason.code] = (report.creations.refused[a.reason.code] ?? 0) + 1;
          if (a.reason.code === 'invalid_params' || a.reason.code === 'internal_error') violation(`a valid creation was refused: ${a.reason.message}`);
        } else violation(`a creation got no answer in 10 minutes: ${(a.reason as Error).message}`);
      }
      if (ids.size > 1) violation(`one Idempotency-Key gave ${ids.size} orders: ${[...ids].join(', ')}`);
      for (const id of ids) {
        report.creations.created++;
        if (viaBot) report.creations.bot++;
        u.ids.add(id);
        if (quoted) {
          quotedCost.set(id, quoted.cost);
          report.creations.quoted++;
        }
      }
      if (quoted && !ids.size) report.creations.quotesUnused++;
      // Some orders are canceled by their client a moment later: queued or awaiting review, or refused (409) if the
      // render started first; a cancel whose answer is lost is sent again (a repeat answers the same).
      for (const id of ids) {
        if (random() >= scale.cancelShare) continue;
        await sleep(random() * 3000);
        report.cancels.asked++;
        try {
          await u.client.cancel(id);
          canceledIds.add(id);
          report.cancels.canceled++;
        } catch (err) {
          const code = err instanceof ApiError ? err.code : 'no answer';
          report.cancels.refused[code] = (report.cancels.refused[code] ?? 0) + 1;
          if (code !== 'not_cancelable' && code !== 'no answer') violation(`a cancel was refused with ${code}`);
        }
      }
    };

    // The reviewer: every director-mode order waiting is approved, regenerated (then approved) or left to lapse.
    const decided = new Map<string, string>();
    const review = async () => {
      for (const u of users) {
        for (const id of u.ids) {
          if (decided.get(id) === 'lapse' || decided.get(id) === 'approve') continue;
          const order = await u.client.getVideo(id).catch(() => undefined);
          if (order?.status !== 'awaiting_review') continue;
          const choice = decided.get(id) === 'regen' ? 'approve' : (['approve', 'regen', 'lapse'] as const)[Math.floor(random() * 3)]!;
          decided.set(id, choice);
          report.orders.reviews[choice]!++;
          if (choice === 'lapse') continue;
          // A review is not repeated by the client; if its answer was lost, the order has moved on (409 says so).
          await u.client.review(id, choice === 'approve' ? { action: 'approve' } : { action: 'regen', note: 'shorter' }).catch((err) => {
            if (!(err instanceof ApiError && err.code === 'not_awaiting_review')) decided.delete(id);
          });
        }
      }
    };

    // Faults at random moments of the load and of the time orders take to settle after it.
    const faultWindow = scale.seconds * 1000 * 1.5;
    const killTimes = Array.from({ length: scale.kills }, () => random() * faultWindow).sort((a, b) => a - b);
    const dynamoAt = random() * faultWindow;
    const receiverAt = random() * scale.seconds * 1000 * 0.5;
    let faultsDone = false;
    const faults = (async () => {
      const t0 = Date.now();
      const at = async (ms: number) => sleep(Math.max(0, t0 + ms - Date.now()));
      const plan = [
        ...killTimes.map((ms) => ({
          ms,
          run: async () => {
            await sut.killAndRestart();
            report.faults.serviceKills++;
            log(`killed and restarted the service at ${(ms / 1000).toFixed(1)} s`);
          },
        })),
        {
          ms: dynamoAt,
          run: async () => {
            if (sut.killDynamo()) report.faults.dynamoRestarts++;
            log(`killed DynamoDB Local at ${(dynamoAt / 1000).toFixed(1)} s`);
          },
        },
        {
          ms: receiverAt,
          run: async () => {
            await receiver.down();
            log(`webhook receiver down at ${(receiverAt / 1000).toFixed(1)} s for ${scale.receiverDownSeconds} s`);
            setTimeout(() => void receiver.up(), scale.receiverDownSeconds * 1000);
          },
        },
      ].sort((a, b) => a.ms - b.ms);
      for (const step of plan) {
        await at(step.ms);
        await step.run();
      }
      faultsDone = true;
    })().catch((err: Error) => violation(`a fault could not be run: ${err.message}`));

    // The load: creations spread over the seconds, by users picked at random, with the reviewer running beside.
    const loadStart = Date.now();
    const pending: Promise<void>[] = [];
    let reviewing = true;
    const reviewer = (async () => {
      while (reviewing) {
        await review().catch(() => undefined);
        await sleep(1000);
      }
    })();
    for (let i = 0; i < scale.creations; i++) {
      await sleep(Math.max(0, loadStart + (i * scale.seconds * 1000) / scale.creations - Date.now()));
      pending.push(create(users[i % users.length]!, i < users.length));
    }
    await Promise.all(pending);
    report.seconds.load = (Date.now() - loadStart) / 1000;
    log(`load done in ${report.seconds.load.toFixed(1)} s: ${report.creations.created} orders`);

    // Settle: faults finish, every order reaches done or error, every event is delivered or dropped.
    const settleStart = Date.now();
    await faults;
    const deadline = Date.now() + scale.settleMinutes * 60_000;
    const finals = new Map<string, Order>();
    let rounds = 0;
    while (Date.now() < deadline) {
      await review().catch(() => undefined);
      // Every order in the store, known to a client or not, must end.
      let open = 0;
      for (const u of users) {
        for (const id of new Set([...u.ids, ...(await orders.idsOfUser(u.userId).catch(() => []))])) {
          if (finals.has(id)) continue;
          const o = await u.client.getVideo(id).catch(() => undefined);
          if (o && (o.status === 'done' || o.status === 'error')) finals.set(id, o);
          else open++;
        }
      }
      const undelivered = (await undeliveredEvents()).length;
      if (open === 0 && undelivered === 0) break;
      if (++rounds % 5 === 0) log(`settling: ${open} orders open, ${undelivered} events undelivered`);
      await sleep(2000);
    }
    reviewing = false;
    await reviewer;
    report.seconds.settle = (Date.now() - settleStart) / 1000;
    if (!faultsDone) violation('the faults did not all run');

    // The invariants.
    for (const u of users) {
      const account = await accounts.get(u.userId);
      const ledger = await accounts.ledger(u.userId);
      const sum = ledger.reduce((s, e) => s + e.amount, 0);
      if (account?.balance !== sum) violation(`user ${u.userId}: balance ${account?.balance} but the ledger sums to ${sum}`);
      // Each entry keeps the balance after it: the one before it's plus its amount, in the ledger's order.
      ledger.reduce((before, e) => {
        if (e.balanceAfter !== before + e.amount) violation(`user ${u.userId}: entry ${e.id} shows ${e.balanceAfter} after ${before} and ${e.amount}`);
        return e.balanceAfter;
      }, 0);
      report.money.balances += account?.balance ?? 0;
      const stored = new Set(await orders.idsOfUser(u.userId));
      for (const id of stored) if (!u.ids.has(id)) violation(`order ${id} exists but no client was told of it`);
      for (const id of u.ids) if (!stored.has(id)) violation(`order ${id} was answered but does not exist`);
      for (const id of stored) {
        const charges = ledger.filter((e) => e.orderId === id && e.kind === 'charge');
        const refunds = ledger.filter((e) => e.orderId === id && e.kind === 'refund');
        const order = finals.get(id);
        if (!order) violation(`order ${id} is not done or error`);
        if (charges.length !== 1) violation(`order ${id} charged ${charges.length} times`);
        if (refunds.length > 1) violation(`order ${id} refunded ${refunds.length} times`);
        if (order?.status === 'error' && refunds.length !== 1) violation(`order ${id} ended in error without its refund`);
        if (order?.status === 'done' && refunds.length !== 0) violation(`order ${id} is done and was refunded`);
        if (refunds[0] && charges[0] && refunds[0].amount !== -charges[0].amount)
          violation(`order ${id} refunded ${refunds[0].amount} of ${charges[0].amount}`);
        if (quotedCost.has(id) && charges[0] && -charges[0].amount !== quotedCost.get(id))
          violation(`order ${id} was quoted ${quotedCost.get(id)} but charged ${-charges[0].amount}`);
        if (canceledIds.has(id) && (order?.status !== 'error' || order.error?.code !== 'canceled'))
          violation(`order ${id} was canceled (200) but ended ${order?.status} ${order?.error?.code ?? ''}`);
        report.money.charged += charges.reduce((s, e) => s - e.amount, 0);
        report.money.refunded += refunds.reduce((s, e) => s + e.amount, 0);
        report.orders.refunded += refunds.length;
        if (order?.status === 'done') report.orders.done++;
        if (order?.status === 'error') {
          report.orders.error++;
          const code = order.error?.code ?? 'none';
          report.orders.errors[code] = (report.orders.errors[code] ?? 0) + 1;
        }
        report.orders.total++;
        for (const event of await orders.events(id)) {
          const stored = await services().stores.events.get(id, event.id);
          report.webhooks.events++;
          if (stored?.delivery === 'delivered') {
            report.webhooks.delivered++;
            if (!receiver.received.has(event.id)) violation(`event ${event.id} is marked delivered but never arrived`);
          } else if (stored?.delivery === 'dropped') report.webhooks.dropped++;
          else violation(`event ${event.id} (${event.type}) is ${stored?.delivery ?? 'missing'}`);
        }
      }
    }
    if (report.money.balances !== report.money.toppedUp - report.money.charged + report.money.refunded)
      violation('the balances do not add up to top-ups - charges + refunds');
    report.webhooks.received = [...receiver.received.values()].reduce((a, b) => a + b, 0);
    report.webhooks.badSignatures = receiver.badSignatures;
    if (receiver.badSignatures > 0) violation(`${receiver.badSignatures} deliveries had a bad signature`);
    return report;
  } finally {
    report.seconds.total = (Date.now() - started) / 1000;
    await receiver.down();
    await sut.stop();
  }
}
