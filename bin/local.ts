/**
 * npm start: the whole service on this machine (docs/architecture.md: One machine). Ctrl-C stops every child it started.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { removeRuntime, writeRuntime } from '../local/runtime-file.ts';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';
import { CLONE_VOICE, PROVIDERS } from '../functions/generator/openai-http.ts';

const dataDir = resolve(process.env.DATA_DIR ?? '.local');
const port = Number(process.env.PORT ?? 3000);
// Owner-only from the first file on (the link key below); the stack makes all of it so again at its start.
mkdirSync(dataDir, { recursive: true, mode: 0o700 });

const passThrough = [
  'LIMIT_ACTIVE_TASKS',
  'LIMIT_POSTS_PER_MINUTE',
  'LIMIT_RESENDS_PER_HOUR',
  'LIMIT_REVIEWS_PENDING',
  'LIMIT_GETS_PER_MINUTE',
  'ORDER_SECONDS_ESTIMATE',
  'RENDER_SLOTS',
  'TEST_RENDER_SLOTS',
  'RENDER_QUEUE_SHARDS',
  'SLOT_LEASE_SECONDS',
  'BOT_RUN_BEFORE_API',
  'SWEEP_SECONDS',
  'SWEEP_GRACE_SECONDS',
  'SWEEP_DESCRIBES_PER_RUN',
  'SWEEP_STARTS_PER_RUN',
  'SWEEP_ITEMS_PER_RUN',
  'QUEUE_SNAPSHOT_MS',
  'MAINTENANCE_MODE',
  'SERVICE_ADDRESS',
  'WEBHOOK_ALLOW_PRIVATE_URLS',
  'WEBHOOK_RETRY_BASE_MS',
  'DELIVERY_CONCURRENCY',
  'GENERATOR_FAIL',
  'REVIEW_DEADLINE_SECONDS',
  'RETENTION_DAYS',
  ...Object.values(PROVIDERS).flatMap(({ prefix }) => ['URL', 'MODEL', 'API_KEY', 'API_KEY_SECRET', 'TIMEOUT_MS'].map((k) => `${prefix}_${k}`)),
  CLONE_VOICE,
];
const env = Object.fromEntries(passThrough.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));

console.log(`Starting the video service (data in ${dataDir}) ...`);
// Download links are signed with a key kept in the data folder, so they survive restarts like the files do.
const keyFile = join(dataDir, 'link-signing-key');
if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
const linkSigningKey = readFileSync(keyFile, 'utf8').trim();
const dynamoPort = process.env.DYNAMODB_PORT ? Number(process.env.DYNAMODB_PORT) : undefined;
const stack = await startLocalStack({
  bucketGrants: BUCKET_GRANTS,
  port,
  dataDir,
  s3Dir: join(dataDir, 's3'),
  env,
  publicHost: 'localhost',
  linkSigningKey,
  ...(dynamoPort ? { dynamoPort } : {}),
});
const publicUrl = stack.baseUrl;
writeRuntime(dataDir, { pid: process.pid, baseUrl: publicUrl, env: stack.env });

// The demo user is made on first start; its key is kept in the data folder so every start can show it.
const demoFile = join(dataDir, 'demo-user.json');
if (!existsSync(demoFile)) {
  const { services } = await import('../functions/app/services.ts');
  const { DEFAULT_TRIAL_VIDEOS } = await import('../functions/core/plans.ts');
  const demo = await services().stores.accounts.createUser({ balance: 1000, trialVideos: DEFAULT_TRIAL_VIDEOS, now: new Date() });
  writeFileSync(demoFile, JSON.stringify({ user_id: demo.userId, api_key: demo.apiKey }, null, 2), { mode: 0o600 });
}
let demo = JSON.parse(readFileSync(demoFile, 'utf8')) as { user_id: string; api_key: string; test_api_key?: string };
// Its test-mode key too (docs/decisions.md "Test mode"); a data folder from before test mode gets one now.
if (!demo.test_api_key) {
  const { services } = await import('../functions/app/services.ts');
  demo = { ...demo, test_api_key: (await services().stores.accounts.issueTestKey(demo.user_id, new Date())).apiKey };
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
}

console.log(`API:       ${publicUrl}`);
console.log(`Demo user: ${demo.user_id}`);
console.log(`API key:   ${demo.api_key}`);
console.log(`Test key:  ${demo.test_api_key} (test mode: orders cost nothing and render a 3 s clip marked TEST)`);
console.log(`Try:       curl -s ${publicUrl}/balance -H 'X-API-Key: ${demo.api_key}'`);
console.log('ready');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping ...`);
  await stack.stop();
  removeRuntime(dataDir);
  console.log('stopped');
  process.exit(0);
}
// Work in flight when the stores stop fails on its way out (its order resumes at the next start): that is not the
// service failing. Before a stop, an unhandled rejection ends the process as Node would.
process.on('unhandledRejection', (err) => {
  if (stopping) return;
  console.error(err);
  process.exit(1);
});
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
