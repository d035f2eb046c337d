#!/usr/bin/env node
/**
 * video-client: the command line of the JavaScript client. Progress goes to stderr, results to stdout, so that
 * `--json` output can be piped. Exit codes: 0 done (or waiting for a review), 1 refused or failed, 2 bad usage.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ApiError, type Asset, VideoClient, type CreateVideoRequest, type Order, type ReviewRequest, type Transaction } from './index.ts';

const USAGE = `Usage: video-client <command> [options]

Commands:
  create "<prompt>"              order a video from a one-line prompt (POST /videos:quick)
  create "<topic>" --director    order with parameters (POST /videos); any of the order options below selects it
  status <id>                    show an order
  review <id> approve            approve the script of an order in director mode
  review <id> edit "<script>"    replace the script and go on
  review <id> regen "<note>"     ask for a new script
  balance [--alert <n>|none]     show the balance, the trial videos left, this month's spend and its limit; --alert
                                 sets the low-balance threshold (balance.low to the webhook) or removes it
  list [--status <s>] [--limit n] the key's orders, newest first (all pages, up to --limit; default 20)
  cancel <id>                    cancel an order whose render has not started, with a full refund
  quote "<prompt>"               the price of an order, item by item, and a quote id that holds it 15 minutes
  quote "<topic>" --director     the same for an order with parameters (the order options below)
  transactions [--limit n]       the ledger, newest first: charges, refunds, top-ups, with the balance after each
  webhook rotate <id> [--overlap <s>]   a new webhook secret; the old one signs beside it for the overlap
  webhook test <id>              send a test event now and show what the receiver answered
  webhook resend <id> <event id> | --since <time>   deliver one event again, or every dropped one since a time
  assets upload <file>           upload a picture (PNG, JPEG, WebP, up to 10 MiB) and print its asset id
  assets list [--limit n]        the key's assets, newest first
  assets delete <id>             delete an asset and its bytes

Options:
  --wait                 follow the order until it is done, failed or waiting for a review, with progress on stderr
  --out <file>           with --wait, or on status of a done order: save the video there
  --timeout <seconds>    how long --wait waits (default 900)
  --json                 print the answer as JSON
  --url <address>        the API address with /v1 (default $VIDEO_SERVICE_URL or http://localhost:3000/v1)
  --key <key>            the API key (default $VIDEO_SERVICE_KEY)
  --quote <id>           create: be charged exactly this quote (made for the same request)
  --max-cost <n>         create: refuse the order if it would cost more
  --metadata KEY=VALUE   create: your own pair on the order (repeatable); list: only orders with this pair
  --logo <asset id>      create: your logo (an uploaded asset) in the corner of every scene
  -h, --help             this text

Order options (create): --director, --duration <s>, --language auto|ru|en, --tone <tone>, --music stock|song|none,
  --voice standard|clone|none, --ai-visual, --no-captions, --cta "<text>", --product "<name>",
  --product-image <asset id> (with --product: the product's picture in its scene)`;

class UsageError extends Error {}

/** --metadata KEY=VALUE options as one object. */
function pairs(values: string[]): Record<string, string> {
  return Object.fromEntries(
    values.map((text) => {
      const at = text.indexOf('=');
      if (at < 1) throw new UsageError('--metadata takes KEY=VALUE');
      return [text.slice(0, at), text.slice(at + 1)];
    }),
  );
}

/** A whole number option, at least `min`. */
function count(value: string, name: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} takes a whole number of at least ${min}`);
  return n;
}

const ORDER_OPTIONS = ['director', 'duration', 'language', 'tone', 'music', 'voice', 'ai-visual', 'no-captions', 'cta', 'product', 'product-image'] as const;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      wait: { type: 'boolean' },
      out: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      key: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      status: { type: 'string' },
      limit: { type: 'string' },
      overlap: { type: 'string' },
      since: { type: 'string' },
      alert: { type: 'string' },
      quote: { type: 'string' },
      'max-cost': { type: 'string' },
      metadata: { type: 'string', multiple: true },
      director: { type: 'boolean' },
      duration: { type: 'string' },
      language: { type: 'string' },
      tone: { type: 'string' },
      music: { type: 'string' },
      voice: { type: 'string' },
      'ai-visual': { type: 'boolean' },
      'no-captions': { type: 'boolean' },
      cta: { type: 'string' },
      product: { type: 'string' },
      'product-image': { type: 'string' },
      logo: { type: 'string' },
    },
  });
  return { values, positionals };
}
type Values = ReturnType<typeof parse>['values'];

/** The body of POST /videos from the order options; the server validates the values and names what is wrong. */
function orderRequest(topic: string, v: Values): CreateVideoRequest {
  const request: Record<string, unknown> = { topic };
  if (v.director) request.director_mode = true;
  if (v.duration !== undefined) request.duration_seconds = Number(v.duration);
  if (v.language !== undefined) request.language = v.language;
  if (v.tone !== undefined) request.tone = v.tone;
  if (v.music !== undefined) request.music = v.music;
  if (v.voice !== undefined) request.voice = v.voice;
  if (v['ai-visual']) request.ai_visual = true;
  if (v['no-captions']) request.captions = false;
  if (v.cta !== undefined) request.cta = v.cta;
  if (v.product !== undefined) request.placement = { product: v.product, ...(v['product-image'] ? { image: v['product-image'] } : {}) };
  else if (v['product-image'] !== undefined) throw new UsageError('--product-image goes with --product');
  return request as CreateVideoRequest;
}

function reviewRequest(args: string[]): ReviewRequest {
  const [action, text] = args;
  if (action === 'approve' && text === undefined) return { action };
  if (action === 'edit' && text !== undefined) return { action, text };
  if (action === 'regen' && text !== undefined) return { action, note: text };
  throw new UsageError('review takes: approve | edit "<script>" | regen "<note>"');
}

/** One line per change on a terminal that is redrawn in place, one line per status change elsewhere. */
function progressReporter(stream: NodeJS.WriteStream, started: number) {
  let last = '';
  return {
    update(order: Order) {
      const seconds = Math.round((Date.now() - started) / 1000);
      const eta = order.eta_seconds !== undefined && order.status !== 'done' ? `, about ${order.eta_seconds} s left` : '';
      const line = `${order.id} ${order.status} (${seconds} s${eta})`;
      if (stream.isTTY) stream.write(`\r${line}\x1b[K`);
      else if (order.status !== last) stream.write(`${line}\n`);
      last = order.status;
    },
    end() {
      if (stream.isTTY && last) stream.write('\n');
    },
  };
}

/** Saves the video behind the order's 7-day link, following its redirect, through a temporary file. */
async function download(url: string, file: string): Promise<number> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`download failed: HTTP ${res.status}`);
  const partial = `${file}.part`;
  try {
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(partial));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return Number(res.headers.get('content-length') ?? 0);
}

function describe(order: Order): string {
  const lines = [`${order.id}: ${order.status}, ${order.cost} doubloons${order.trial ? ' (trial)' : ''}`];
  if (order.status === 'awaiting_review' && order.script) {
    lines.push('Script for review:', order.script, `Approve: video-client review ${order.id} approve`);
  }
  if (order.result_url) lines.push(`Video: ${order.result_url}`);
  if (order.metadata)
    lines.push(`Title: ${order.metadata.title}`, `Description: ${order.metadata.description}`, `Hashtags: ${order.metadata.hashtags.join(' ')}`);
  if (order.error) lines.push(`Error: ${order.error.code}: ${order.error.message}`);
  return lines.join('\n');
}

/** What every command works with: the client, the options, its arguments, and how it answers. */
interface Run {
  client: VideoClient;
  v: Values;
  args: string[];
  io: { stderr: NodeJS.WriteStream };
  out: (value: unknown, text: string) => void;
  /** Waits for the order when --wait says so, prints it, saves its video with --out: the exit code. */
  follow: (order: Order) => Promise<number>;
}

async function createCommand({ client, v, args, io, follow }: Run): Promise<number> {
  if (args.length !== 1 || !args[0]) throw new UsageError('create takes one quoted prompt');
  const full = ORDER_OPTIONS.some((o) => v[o] !== undefined);
  const options = {
    ...(v.quote ? { quote_id: v.quote } : {}),
    ...(v['max-cost'] ? { max_cost: count(v['max-cost'], '--max-cost') } : {}),
    ...(v.metadata ? { metadata: pairs(v.metadata) } : {}),
    ...(v.logo ? { logo: v.logo } : {}),
  };
  const created = full ? await client.createVideo({ ...orderRequest(args[0], v), ...options }) : await client.createQuick({ prompt: args[0], ...options });
  io.stderr.write(`ordered ${created.id} for ${created.cost} doubloons\n`);
  return await follow(await client.getVideo(created.id));
}

async function statusCommand({ client, args, follow }: Run): Promise<number> {
  if (args.length !== 1) throw new UsageError('status takes an order id');
  return await follow(await client.getVideo(args[0]!));
}

async function reviewCommand({ client, args, follow }: Run): Promise<number> {
  const [id, ...decision] = args;
  if (!id) throw new UsageError('review takes an order id and a decision');
  return await follow(await client.review(id, reviewRequest(decision)));
}

async function balanceCommand({ client, v, out }: Run): Promise<number> {
  const balance = v.alert === undefined ? await client.getBalance() : await client.setBalanceAlert(v.alert === 'none' ? null : count(v.alert, '--alert'));
  const { spend, low_balance_alert: alert } = balance;
  out(
    balance,
    `${balance.balance} doubloons, ${balance.trial_videos_left} trial videos left${balance.plan ? `, plan ${balance.plan}` : ''}; spent ${spend.spent}${
      spend.limit !== undefined ? ` of ${spend.limit}` : ''
    } in ${spend.month}${alert ? `; alert below ${alert.below}${alert.sent ? ' (sent)' : ''}` : ''}`,
  );
  return 0;
}

async function listCommand({ client, v, out }: Run): Promise<number> {
  const limit = v.limit === undefined ? 20 : count(v.limit, '--limit');
  const orders: Order[] = [];
  const status = v.status as Order['status'] | undefined;
  if ((v.metadata?.length ?? 0) > 1) throw new UsageError('list takes one --metadata pair');
  const query = { limit: Math.min(100, limit), ...(status ? { status } : {}), ...(v.metadata ? { metadata: pairs(v.metadata) } : {}) };
  for await (const o of client.listVideos(query)) {
    orders.push(o);
    if (orders.length >= limit) break;
  }
  out(orders, orders.map((o) => `${o.id}  ${o.status.padEnd(15)} ${String(o.cost).padStart(4)}  ${o.created_at}  ${o.params.topic}`).join('\n') || 'no orders');
  return 0;
}

async function cancelCommand({ client, args, out }: Run): Promise<number> {
  if (args.length !== 1) throw new UsageError('cancel takes an order id');
  const order = await client.cancel(args[0]!);
  out(order, `${order.id}: canceled, ${order.refund?.amount ?? 0} doubloons refunded`);
  return 0;
}

async function quoteCommand({ client, v, args, out }: Run): Promise<number> {
  if (args.length !== 1 || !args[0]) throw new UsageError('quote takes one quoted prompt (or topic, with order options)');
  const full = ORDER_OPTIONS.some((o) => v[o] !== undefined);
  const q = await client.quote(full ? orderRequest(args[0], v) : { prompt: args[0] });
  const items = [`base ${q.breakdown.base}`, ...Object.entries(q.breakdown.extras).map(([k, n]) => `${k} ${n}`)];
  const paidBy = [q.breakdown.trial ? 'a trial video' : '', q.breakdown.plan_allowance ? "the plan's allowance" : ''].filter(Boolean);
  out(
    q,
    `${q.cost} doubloons (${items.join(', ')})${paidBy.length ? `, partly paid by ${paidBy.join(' and ')}` : ''}; about ${q.eta_seconds} s\nquote ${q.quote_id}, valid until ${q.expires_at}`,
  );
  return 0;
}

async function transactionsCommand({ client, v, out }: Run): Promise<number> {
  const limit = v.limit === undefined ? 20 : count(v.limit, '--limit');
  const entries: Transaction[] = [];
  for await (const e of client.listTransactions({ limit: Math.min(100, limit) })) {
    entries.push(e);
    if (entries.length >= limit) break;
  }
  const line = (e: Transaction) =>
    `${e.created_at}  ${e.kind.padEnd(14)} ${String(e.amount).padStart(6)}  balance ${e.balance_after}${e.order_id ? `  ${e.order_id}` : ''}${e.reason ? ` (${e.reason})` : ''}`;
  out(entries, entries.map(line).join('\n') || 'no entries');
  return 0;
}

async function webhookCommand({ client, v, args, out }: Run): Promise<number> {
  const [action, id, eventId] = args;
  if (!id) throw new UsageError('webhook takes rotate, test or resend, and the webhook id');
  if (action === 'rotate') {
    const rotated = await client.rotateWebhookSecret(id, v.overlap === undefined ? {} : { overlap_seconds: count(v.overlap, '--overlap', 0) });
    out(
      rotated,
      `new secret ${rotated.secret}${rotated.previous_secret_expires_at ? `; the old one signs too until ${rotated.previous_secret_expires_at}` : ''}`,
    );
    return 0;
  }
  if (action === 'test') {
    const r = await client.testWebhook(id);
    out(r, `${r.delivered ? 'delivered' : 'not delivered'}: ${r.http_status ?? r.error} in ${r.latency_ms} ms`);
    return r.delivered ? 0 : 1;
  }
  if (action === 'resend') {
    if (!eventId === !v.since) throw new UsageError('webhook resend takes an event id or --since <time>');
    const r = await client.resendEvents(id, eventId ? { event_id: eventId } : { since: v.since! });
    out(r, r.resent.length ? `sent again: ${r.resent.join(', ')}${r.has_more ? ' (more: run it again)' : ''}` : 'nothing to send again');
    return 0;
  }
  throw new UsageError(`unknown webhook action: ${action}`);
}

async function assetsCommand({ client, v, args, out }: Run): Promise<number> {
  const [action, target] = args;
  if (action === 'upload' && target) {
    const asset = await client.uploadAsset(new Uint8Array(await readFile(target)));
    out(asset, `${asset.id}: uploaded ${target} (${asset.content_type}, ${asset.size_bytes} bytes); name it as --logo or --product-image`);
    return 0;
  }
  if (action === 'list' && !target) {
    const limit = v.limit === undefined ? 20 : count(v.limit, '--limit');
    const assets: Asset[] = [];
    for await (const a of client.listAssets({ limit: Math.min(100, limit) })) {
      assets.push(a);
      if (assets.length >= limit) break;
    }
    const size = (a: Asset) => (a.width ? `${a.width}x${a.height}` : (a.refusal ?? ''));
    out(assets, assets.map((a) => `${a.id}  ${a.status.padEnd(9)} ${a.content_type.padEnd(10)} ${a.created_at}  ${size(a)}`).join('\n') || 'no assets');
    return 0;
  }
  if (action === 'delete' && target) {
    await client.deleteAsset(target);
    out({ deleted: target }, `${target}: deleted`);
    return 0;
  }
  throw new UsageError('assets takes: upload <file> | list | delete <id>');
}

/** The commands, by name. */
const COMMANDS: Record<string, (run: Run) => Promise<number>> = {
  create: createCommand,
  status: statusCommand,
  review: reviewCommand,
  balance: balanceCommand,
  list: listCommand,
  cancel: cancelCommand,
  quote: quoteCommand,
  transactions: transactionsCommand,
  webhook: webhookCommand,
  assets: assetsCommand,
};

export async function main(argv: string[], io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream; env: NodeJS.ProcessEnv }): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n(video-client --help shows the commands)\n`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const [command, ...args] = positionals;
  if (v.help || !command) {
    (v.help ? io.stdout : io.stderr).write(`${USAGE}\n`);
    return v.help ? 0 : 2;
  }
  const apiKey = v.key ?? io.env.VIDEO_SERVICE_KEY;
  const out = (value: unknown, text: string) => io.stdout.write(`${v.json ? JSON.stringify(value, null, 2) : text}\n`);
  try {
    if (!apiKey) throw new UsageError('an API key is needed: --key or VIDEO_SERVICE_KEY');
    const timeoutSeconds = v.timeout === undefined ? 900 : Number(v.timeout);
    if (!(timeoutSeconds > 0)) throw new UsageError('--timeout takes a number of seconds');
    const client = new VideoClient({
      baseUrl: v.url ?? io.env.VIDEO_SERVICE_URL ?? 'http://localhost:3000/v1',
      apiKey,
      onRetry: (r) => io.stderr.write(`retrying in ${(r.delayMs / 1000).toFixed(1)} s: ${r.reason}\n`),
    });
    const follow = async (order: Order): Promise<number> => {
      let final = order;
      if (v.wait) {
        const progress = progressReporter(io.stderr, Date.parse(order.created_at) || Date.now());
        try {
          final = await client.waitForVideo(order.id, { timeout: timeoutSeconds * 1000, onProgress: progress.update });
        } finally {
          progress.end();
        }
      }
      out(final, describe(final));
      if (v.out && final.status === 'done' && final.result_url) {
        const bytes = await download(final.result_url, v.out);
        io.stderr.write(`saved ${v.out} (${(bytes / 1e6).toFixed(1)} MB)\n`);
      } else if (v.out && final.status !== 'awaiting_review') {
        io.stderr.write(`not saved: the order is ${final.status}\n`);
      }
      return final.status === 'error' ? 1 : 0;
    };

    const run = COMMANDS[command];
    if (!run) throw new UsageError(`unknown command: ${command}`);
    return await run({ client, v, args, io, out, follow });
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${err.message}\n(video-client --help shows the commands)\n`);
      return 2;
    }
    const message =
      err instanceof ApiError ? `${err.message} (HTTP ${err.status}${err.requestId ? `, request ${err.requestId}` : ''})` : (err as Error).message;
    io.stderr.write(`error: ${message}\n`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2), process);
