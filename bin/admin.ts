/**
 * The operator CLI: the chat bot's operations (keys, top-ups, plans, orders, account deletion). Prints one JSON object.
 * With TABLE_NAME set (and BUCKET_NAME, ORDER_STATE_MACHINE_ARN) it works on those stores: the deployed AWS stack.
 * Otherwise it uses the stores of the `npm start` running on DATA_DIR, or starts its own on that folder when none runs.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AppError } from '../functions/core/errors.ts';

const USAGE = `usage: npm run -s admin -- <command> [options]
  create-user [--balance N] [--trial-videos N] [--plan NAME]
  issue-key   --user ID [--test]           (--test: the user's test-mode key, vgk_test_...)
  revoke-key  --user ID [--test]
  top-up      --user ID --amount N
  set-plan    --user ID [--plan NAME]     (no --plan removes the plan)
  set-limit   --user ID --monthly N|none  (the key's monthly spend limit in doubloons; none removes it)
  balance     --user ID
  delete-user --user ID
  create-order --user ID (--prompt TEXT | --topic TEXT [--params JSON]) [--director] [--idempotency-key KEY]`;

function fail(code: string, message: string): never {
  console.log(JSON.stringify({ error: { code, message } }));
  process.exit(1);
}

let args: ReturnType<typeof parse>;
const parse = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      balance: { type: 'string' },
      'trial-videos': { type: 'string' },
      plan: { type: 'string' },
      amount: { type: 'string' },
      monthly: { type: 'string' },
      prompt: { type: 'string' },
      topic: { type: 'string' },
      params: { type: 'string' },
      director: { type: 'boolean' },
      test: { type: 'boolean' },
      'idempotency-key': { type: 'string' },
    },
  });
try {
  args = parse();
} catch (err) {
  fail('bad_request', `${(err as Error).message}\n${USAGE}`);
}
const { positionals, values } = args;

async function connect(): Promise<() => Promise<void>> {
  // Settings given explicitly: the deployed stack on AWS, or a local stack whose endpoints the caller passes.
  if (process.env.TABLE_NAME) return async () => undefined;
  const { readRuntime } = await import('../local/runtime-file.ts');
  const dataDir = resolve(process.env.DATA_DIR ?? '.local');
  const running = readRuntime(dataDir);
  if (running) {
    Object.assign(process.env, running.env);
    return async () => undefined;
  }
  const [{ startLocalStack }, { BUCKET_GRANTS }] = await Promise.all([import('../local/stack.ts'), import('../lib/access.ts')]);
  // The stores only: the orders left in the folder are the service's to resume at its next start.
  // Executions are held too: an order the bot places now runs when the service starts.
  const stack = await startLocalStack({ bucketGrants: BUCKET_GRANTS, port: 0, dataDir, s3Dir: join(dataDir, 's3'), jobs: false, env: { LOCAL_SFN_HOLD: '1' } });
  return stack.stop;
}

function need<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new AppError('invalid_params', `--${flag} is required`);
  return value;
}

async function run(command: string | undefined): Promise<object> {
  const { services } = await import('../functions/app/services.ts');
  const { deleteUser, positiveAmount, spendLimitOf } = await import('../functions/core/admin.ts');
  const { DEFAULT_TRIAL_VIDEOS, planNamed } = await import('../functions/core/plans.ts');
  const { balanceView } = await import('../functions/core/balance.ts');
  const s = services().stores;
  const now = new Date();
  const user = () => need(values.user, 'user');
  switch (command) {
    case 'create-user': {
      const balance = values.balance === undefined ? 0 : Number(values.balance);
      const trialVideos = values['trial-videos'] === undefined ? DEFAULT_TRIAL_VIDEOS : Number(values['trial-videos']);
      if (!Number.isSafeInteger(balance) || balance < 0) throw new AppError('invalid_params', '--balance must be a whole number >= 0');
      if (!Number.isSafeInteger(trialVideos) || trialVideos < 0) throw new AppError('invalid_params', '--trial-videos must be a whole number >= 0');
      const plan = values.plan ? planNamed(values.plan) : undefined;
      const { userId, apiKey } = await s.accounts.createUser({ balance, trialVideos, ...(plan ? { plan } : {}), now });
      return { user_id: userId, api_key: apiKey, balance, trial_videos_left: trialVideos, ...(plan ? { plan: plan.name } : {}) };
    }
    case 'issue-key': {
      if (!values.test) return { api_key: await s.accounts.issueKey(user(), now), livemode: true };
      const { apiKey, testAccountId } = await s.accounts.issueTestKey(user(), now);
      return { api_key: apiKey, livemode: false, test_account_id: testAccountId };
    }
    case 'revoke-key': {
      if (!values.test) {
        await s.accounts.revokeKey(user());
        return { revoked: true };
      }
      const testAccount = (await s.accounts.get(user()))?.testAccount;
      if (!testAccount) throw new AppError('not_found', 'The user has no test-mode key');
      await s.accounts.revokeKey(testAccount);
      return { revoked: true, livemode: false };
    }
    case 'top-up':
      return { balance: await s.accounts.topUp(user(), positiveAmount(values.amount, '--amount'), now) };
    case 'set-plan': {
      const plan = values.plan ? planNamed(values.plan) : undefined;
      await s.accounts.setPlan(user(), plan);
      return { plan: plan?.name ?? null };
    }
    case 'set-limit': {
      const monthly = spendLimitOf(values.monthly, '--monthly');
      await s.accounts.setSpendLimit(user(), monthly);
      return { monthly_limit: monthly ?? null };
    }
    case 'balance': {
      const account = await s.accounts.get(user());
      if (!account) throw new AppError('not_found', 'No such user');
      return balanceView(account, now);
    }
    case 'delete-user':
      return { deleted: true, ...(await deleteUser(s, user())) };
    case 'create-order': {
      // The bot's channel: the same entry the bot's role invokes on AWS, run here in this process.
      let params: unknown;
      try {
        params = values.params === undefined ? undefined : JSON.parse(values.params);
      } catch {
        throw new AppError('invalid_params', '--params must be a JSON object');
      }
      const { handler } = await import('../functions/bot/place-order.ts');
      const { invoke } = await import('../local/invocations.ts');
      const { lambdaContext } = await import('../local/gateway.ts');
      const event = {
        user_id: user(),
        ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
        ...(values.topic !== undefined ? { topic: values.topic } : {}),
        ...(params !== undefined ? { params } : {}),
        ...(values.director ? { director: true } : {}),
        ...(values['idempotency-key'] !== undefined ? { idempotency_key: values['idempotency-key'] } : {}),
      };
      const answer = await invoke('place-order', () => handler(event, lambdaContext('place-order')));
      if ('error' in answer) throw new AppError(answer.error.code as never, answer.error.message);
      const { replayed, ...created } = answer;
      return replayed ? { ...created, replayed } : created;
    }
    default:
      throw new AppError('bad_request', USAGE);
  }
}

const disconnect = await connect();
let code = 0;
try {
  console.log(JSON.stringify(await run(positionals[0])));
} catch (err) {
  code = 1;
  const e = err as AppError;
  console.log(JSON.stringify({ error: { code: e.code ?? 'bad_request', message: e.message } }));
} finally {
  await disconnect();
}
process.exit(code);
