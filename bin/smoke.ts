/**
 * The smoke test of a deployment (the pipeline's gate between stages, docs/deploy.md): a few calls a client makes,
 * against the live API. One order costs its key one video.
 *
 *   SMOKE_BASE_URL=https://.../v1 SMOKE_API_KEY=vgk_... npm run -s smoke [-- --timeout-seconds 600]
 *   SMOKE_BASE_URL=https://.../v1 TABLE_NAME=... BUCKET_NAME=... npm run -s smoke
 *
 * With no SMOKE_API_KEY it makes its own throwaway user and key in the stack's table (as the operator CLI does, with
 * the credentials of the shell) and deletes them, with the order and its files, at the end, so a pipeline's first run
 * needs nothing made by hand. A user whose order is still running when a check fails is kept (deleting it under its
 * workflow would fail the workflow), and the line saying so gives the command that deletes it.
 *
 * Prints one line per check and exits 1 on the first that fails. The custom methods (`/videos:quick`, `/videos:quote`)
 * are tried with the colon and with `%3A`, as clients send either: both must reach them through the route they share
 * (POST /v1/{customMethod}), and any other name there must get the service's own 404 envelope.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: answers are read field by field, each check guarding its own.
import { parseArgs } from 'node:util';

/** The throwaway user's doubloons: one quick order at the default prices, with room for a stage's dearer ones. */
const THROWAWAY_BALANCE = 1000;

const { values } = parseArgs({ options: { 'timeout-seconds': { type: 'string', default: '600' } } });
const base = process.env.SMOKE_BASE_URL?.replace(/\/$/, '');
if (!base || !(process.env.SMOKE_API_KEY || (process.env.TABLE_NAME && process.env.BUCKET_NAME))) {
  console.error('SMOKE_BASE_URL (the API with /v1) is required, and SMOKE_API_KEY, or TABLE_NAME and BUCKET_NAME (the stack outputs) to make a throwaway user');
  process.exit(2);
}
const deadline = Date.now() + Number(values['timeout-seconds']) * 1000;

async function throwawayUser(): Promise<{ userId: string; apiKey: string }> {
  const { services } = await import('../functions/app/services.ts');
  const made = await services().stores.accounts.createUser({ balance: THROWAWAY_BALANCE, trialVideos: 0, now: new Date() });
  console.log(`# made a throwaway user ${made.userId} with ${THROWAWAY_BALANCE} doubloons`);
  return made;
}

/** Deletes the throwaway user with its key, orders and files, unless an order of it is still running. */
async function deleteThrowaway(userId: string, order: { id?: string; status?: string } | undefined): Promise<void> {
  if (order?.id && !['done', 'error'].includes(order.status ?? '')) {
    console.log(`# kept the throwaway user ${userId}: its order ${order.id} is ${order.status}; later: npm run -s admin -- delete-user --user ${userId}`);
    return;
  }
  const [{ services }, { deleteUser }] = await Promise.all([import('../functions/app/services.ts'), import('../functions/core/admin.ts')]);
  const { orders, files } = await deleteUser(services().stores, userId);
  console.log(`# deleted the throwaway user ${userId} (${orders} order, ${files} files)`);
}

const throwaway = process.env.SMOKE_API_KEY ? undefined : await throwawayUser();
const key = process.env.SMOKE_API_KEY ?? throwaway!.apiKey;

async function call(method: string, path: string, opts: { key?: boolean; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== false) headers['x-api-key'] = key!;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path.startsWith('http') ? path : base + path, {
    method,
    headers,
    redirect: 'follow',
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  // Whatever the service answered: each check reads the fields it needs, and a missing one fails the check.
  let json: any;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, json, bytes, type: res.headers.get('content-type') ?? '' };
}

class CheckFailed extends Error {}
let step = 0;
function check(ok: boolean, what: string, detail: unknown): void {
  step += 1;
  if (!ok) {
    console.log(`not ok ${step} ${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    throw new CheckFailed(what);
  }
  console.log(`ok ${step} ${what}`);
}

/** The order the checks made, as last seen: the throwaway user is deleted only once it has ended. */
let order: any;
async function checks(): Promise<void> {
  const doc = await call('GET', '/openapi.json', { key: false });
  check(doc.status === 200 && doc.json?.openapi?.startsWith('3.'), 'GET /openapi.json answers the contract without a key', doc.status);
  const anon = await call('GET', '/balance', { key: false });
  check(anon.status === 401 && anon.json?.error?.code === 'unauthorized', 'GET /balance without a key is 401 in the error envelope', anon.json ?? anon.status);
  const balance = await call('GET', '/balance');
  check(balance.status === 200 && Number.isInteger(balance.json?.balance), 'GET /balance with the key', balance.json ?? balance.status);
  const missing = await call('GET', '/videos/vid_01J00000000000000000000000');
  check(missing.status === 404 && missing.json?.error?.code === 'not_found', 'GET of an unknown order is 404', missing.json ?? missing.status);

  const idempotencyKey = `smoke-${Date.now()}`;
  const body = { prompt: 'A 10 second video about green tea' };
  // The checks that cost nothing first: a routing fault shows before the order's wait.
  const unknownMethod = await call('POST', '/videos:nothing', { body });
  check(
    unknownMethod.status === 404 && unknownMethod.json?.error?.code === 'not_found',
    "POST /videos:nothing is 404 in the service's envelope",
    unknownMethod.json ?? unknownMethod.status,
  );
  const quoted = await call('POST', '/videos:quote', { body });
  check(
    quoted.status === 200 && /^quo_/.test(quoted.json?.quote_id ?? ''),
    'POST /videos:quote (a colon route) prices the order, charging nothing',
    quoted.json ?? quoted.status,
  );
  const encodedQuote = await call('POST', '/videos%3Aquote', { body });
  check(
    encodedQuote.status === 200 && /^quo_/.test(encodedQuote.json?.quote_id ?? ''),
    'POST /videos%3Aquote (the colon encoded) prices the order too',
    encodedQuote.json ?? encodedQuote.status,
  );
  const created = await call('POST', '/videos:quick', { body, headers: { 'idempotency-key': idempotencyKey } });
  check(
    created.status === 201 && /^vid_/.test(created.json?.id ?? ''),
    'POST /videos:quick (the route with a colon) creates an order',
    created.json ?? created.status,
  );
  order = created.json;
  // The replay through the other spelling: it reaches the same handler, and costs no second video.
  const replay = await call('POST', '/videos%3Aquick', { body, headers: { 'idempotency-key': idempotencyKey } });
  check(
    [200, 201].includes(replay.status) && replay.json?.id === created.json.id,
    'POST /videos%3Aquick (the colon encoded) with the same Idempotency-Key answers the same order',
    replay.json ?? replay.status,
  );

  while (!['done', 'error'].includes(order.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5000));
    const got = await call('GET', `/videos/${created.json.id}`);
    if (got.status === 200) order = got.json;
  }
  check(order.status === 'done', `the order is done within ${values['timeout-seconds']} s`, order);
  const listed = await call('GET', '/videos?limit=5');
  check(
    listed.status === 200 && listed.json?.data?.some((o: { id: string }) => o.id === created.json.id),
    'GET /videos lists the order',
    listed.json ?? listed.status,
  );
  const video = await call('GET', order.result_url, { key: false });
  check(
    video.status === 200 && video.bytes.subarray(4, 8).toString('latin1') === 'ftyp',
    `result_url downloads an mp4 without a key (${video.bytes.length} bytes)`,
    video.status,
  );
  const tampered = await call('GET', order.result_url.replace(/sig=[^&]+/, 'sig=AAAA'), { key: false });
  check(tampered.status === 403 && tampered.json?.error?.code === 'forbidden', 'a tampered link is 403', tampered.json ?? tampered.status);
}

let code = 0;
try {
  await checks();
  console.log(`smoke test passed: ${step} checks against ${base}`);
} catch (err) {
  if (!(err instanceof CheckFailed)) console.log(`not ok ${step + 1} the smoke test could not go on: ${String(err)}`);
  code = 1;
} finally {
  if (throwaway) await deleteThrowaway(throwaway.userId, order);
}
process.exit(code);
