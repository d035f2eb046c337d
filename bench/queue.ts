/**
 * The render queue at peak, on the local stack with 2 slots: after four warm-up orders at once (so the generation
 * rate is measured at full slots, as on a service that has been busy), 40 API quick orders arrive at once from 4 keys
 * (10 each, the active limit), and 8 bot orders arrive one by one, evenly over the burst's expected length, as chat
 * users send them. Every order is a 10-second video. Measured: slot utilisation while orders wait (sampled every 100 ms),
 * the wait for a slot per channel, one render (admission to done), the eta_seconds error of each creation answer
 * against its actual creation-to-done time, state transitions per quick order including its wait, and failures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';
import { waitingIn } from '../functions/core/capacity.ts';

const SLOTS = 2;
const API_KEYS = 4;
const API_PER_KEY = 10;
const BOT_ORDERS = 8;

export interface QueueFigures {
  orders: { api: number; bot: number };
  failures: number;
  utilisation: number;
  botWaitP50: number;
  apiWaitP50: number;
  renderP50: number;
  etaErrorP50: number;
  etaErrorP90: number;
  transitionsMax: number;
  burstSeconds: number;
}

interface Tracked {
  id: string;
  channel: 'api' | 'bot';
  createdAt: number;
  eta: number;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export async function benchQueue(): Promise<QueueFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-queue-'));
  const stack = await startLocalStack({
    bucketGrants: BUCKET_GRANTS,
    port: 0,
    s3Dir: join(dir, 's3'),
    env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL', RENDER_SLOTS: String(SLOTS) },
  });
  try {
    const { services } = await import('../functions/app/services.ts');
    const { Capacity } = await import('../functions/adapters/capacity.ts');
    const {
      config,
      creation,
      stores: { accounts, orders },
    } = services();
    const store = new Capacity((await import('../functions/adapters/aws.ts')).aws().ddb, config.tableName);
    const post = async (apiKey: string, path: string, body: unknown) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const finished = async (id: string) => {
      for (;;) {
        const o = await orders.get(id);
        if (o?.status === 'done' || o?.status === 'error') return o;
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // Warm-up: four orders at once fill both slots, so the generation rate is measured under the load of a peak (on
    // one machine two renders share the cores; a render alone is faster).
    const warm = await accounts.createUser({ balance: 10_000, trialVideos: 0, now: new Date() });
    const warmStart = Date.now();
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) =>
        finished((await post(warm.apiKey, '/videos:quick', { prompt: `A 10 seconds video about warm tea ${i}` })).body.id),
      ),
    );
    const perOrder = (Date.now() - warmStart) / 1000 / 4;
    // The bot's orders arrive evenly over the burst's expected length, as steady chat traffic.
    const botEvery = (perOrder * (API_KEYS * API_PER_KEY + BOT_ORDERS)) / (BOT_ORDERS + 1);

    // Slot use while anything waits, and each order's admission (its slot's `since`).
    const admitted = new Map<string, number>();
    let sampling = true;
    let busyWhileWaiting = 0;
    let samplesWaiting = 0;
    const sampler = (async () => {
      while (sampling) {
        // Two slots are one shard: its state item counts the waiting.
        const [slots, [state]] = await Promise.all([store.slots([0, 1]), store.states([0])]);
        const [api, bot] = [waitingIn(state!, 'api'), waitingIn(state!, 'bot')];
        for (const s of slots) if (s.holder && s.since && !admitted.has(s.holder)) admitted.set(s.holder, Date.parse(s.since));
        if (api + bot > 0) {
          samplesWaiting++;
          busyWhileWaiting += slots.filter((s) => s.holder).length / SLOTS;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const tracked: Tracked[] = [];
    let failures = 0;
    const users = await Promise.all(Array.from({ length: API_KEYS }, () => accounts.createUser({ balance: 10_000, trialVideos: 0, now: new Date() })));
    const burstStart = Date.now();
    const apiBurst = users.flatMap((u, k) =>
      Array.from({ length: API_PER_KEY }, async (_, i) => {
        const createdAt = Date.now();
        const r = await post(u.apiKey, '/videos:quick', { prompt: `A 10 seconds video about tea, part ${k * API_PER_KEY + i + 1}` });
        if (r.status !== 201) failures++;
        else tracked.push({ id: r.body.id, channel: 'api', createdAt, eta: r.body.eta_seconds });
      }),
    );
    const botUser = await accounts.createUser({ balance: 10_000, trialVideos: 0, now: new Date() });
    const botStream = (async () => {
      for (let i = 0; i < BOT_ORDERS; i++) {
        await new Promise((r) => setTimeout(r, botEvery * 1000));
        const account = (await accounts.get(botUser.userId))!;
        const createdAt = Date.now();
        const r = await creation.create({
          account,
          channel: 'bot',
          request: { kind: 'quick', prompt: `A 10 seconds video about coffee, part ${i + 1}` },
          now: new Date(),
        });
        tracked.push({ id: r.response.id, channel: 'bot', createdAt, eta: r.response.eta_seconds });
      }
    })();
    await Promise.all([...apiBurst, botStream]);
    const done = await Promise.all(tracked.map((t) => finished(t.id)));
    const burstSeconds = (Date.now() - burstStart) / 1000;
    sampling = false;
    await sampler;
    await stack.sfn.idle();

    failures += done.filter((o) => o.status !== 'done').length;
    const waits = { api: [] as number[], bot: [] as number[] };
    const renders: number[] = [];
    const etaErrors: number[] = [];
    tracked.forEach((t, i) => {
      const o = done[i]!;
      const end = Date.parse(o.finishedAt!);
      const since = admitted.get(t.id);
      if (since !== undefined) {
        waits[t.channel].push((since - t.createdAt) / 1000);
        renders.push((end - since) / 1000);
      }
      const actual = (end - t.createdAt) / 1000;
      etaErrors.push(Math.abs(t.eta - actual) / actual);
    });
    const arn = (id: string) => `${stack.env.ORDER_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${id}`;
    const transitions = tracked.map((t) => stack.sfn.transitions(arn(t.id)));
    return {
      orders: { api: tracked.filter((t) => t.channel === 'api').length, bot: tracked.filter((t) => t.channel === 'bot').length },
      failures,
      utilisation: samplesWaiting ? busyWhileWaiting / samplesWaiting : 0,
      botWaitP50: quantile(waits.bot, 0.5),
      apiWaitP50: quantile(waits.api, 0.5),
      renderP50: quantile(renders, 0.5),
      etaErrorP50: quantile(etaErrors, 0.5),
      etaErrorP90: quantile(etaErrors, 0.9),
      transitionsMax: Math.max(...transitions),
      burstSeconds,
    };
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
