/**
 * Least privilege, checked against what the code really does: every route and every step runs on the local stack
 * (a quick order to done and its download, then of its deleted mp4, a director order through regen and approve, one
 * whose review deadline lapses, webhook deliveries), an SDK middleware records the AWS action of every call and the
 * function it ran as (a read answered 404 needs s3:ListBucket: S3 answers 403 to a caller without it), and each
 * recorded action must be granted to that function in lib/access.ts, from which CDK builds the policies.
 * The other way round too: each granted action must be performed by its function here, or be listed in UNSEEN with
 * the reason the local run cannot show it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { ACCESS, type Access, FUNCTION_ACCESS } from '../../lib/access.ts';
import { invocation } from '../../local/invocations.ts';
import { ROUTES, DEFAULT_ROUTE, DEPLOYED_ROUTES } from '../../functions/http/routes.ts';
import { STEPS } from '../../functions/steps/table.ts';
import { BOT_FUNCTIONS } from '../../functions/bot/table.ts';
import { EXECUTION_LISTENERS, INVOKED, JOBS } from '../../functions/jobs/table.ts';
import { actionsOf } from '../support/aws-actions.ts';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { useStack, waitForStatus } from '../support/stack.ts';
import { waitingIn } from '../../functions/core/capacity.ts';

const t = useStack({
  WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
  WEBHOOK_RETRY_BASE_MS: '200',
  REVIEW_DEADLINE_SECONDS: '8',
  RENDER_SLOTS: '1',
  SWEEP_SECONDS: '3600',
  SWEEP_GRACE_SECONDS: '0',
  // Every function reads the queue itself, as each does in its own Lambda (one process here shares a snapshot).
  QUEUE_SNAPSHOT_MS: '0',
  // The run makes more POSTs than a key may in a minute.
  LIMIT_POSTS_PER_MINUTE: '1000',
});
let receiver: Server | undefined;
after(() => receiver?.close());
/** The orders' video: the shortest, with no voice or music (any video's render makes the same AWS calls). */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

/** The same actions, as lib/access.ts grants them (test/infra/stack.test.ts checks the policies CDK builds are exactly these). */
function granted(a: Access): Set<string> {
  return new Set([
    ...(a.table ?? []).map((x) => `dynamodb:${x}`),
    ...(a.bucket ?? []).map((x) => `s3:${x}`),
    ...(a.assets ?? []).map((x) => `s3:${x}`),
    ...(a.listBucket || a.listAssets ? ['s3:ListBucket'] : []),
    ...(a.orderMachine ?? []).map((x) => (x === 'StartExecution' ? 'states:StartExecution:order' : `states:${x}`)),
    ...(a.startDelivery ? ['states:StartExecution:delivery'] : []),
    ...(a.describeExecutions ?? []).map((m) => `states:DescribeExecution:${m}`),
    ...(a.stopOrders ? ['states:StopExecution:order'] : []),
    ...(a.linkKey ? ['secretsmanager:GetSecretValue'] : []),
    ...(a.checkAssets ? ['lambda:InvokeFunction:check-asset'] : []),
  ]);
}

/**
 * Granted actions the local run cannot show, each with its reason. On one machine the link-signing key comes from
 * LINK_SIGNING_KEY, so the Secrets Manager read of AWS never happens here.
 */
/** The recovery's deadline path, which this run does not take. */
const DEADLINE_BY_EVENT =
  'cancels an order past its deadline whose execution ended (deadline_seconds is at least 60 s, which this run does not wait for; test/domain/sweep.test.ts)';
const NO_SECRET_HERE = 'on one machine the link-signing key is LINK_SIGNING_KEY, not the secret';
/**
 * Every admission (a creation, a release, the audit) gives the free slot to whoever waits next: it completes a running
 * wait (SendTaskSuccess) or starts the execution of an order its creation queued (StartExecution), and reads the heads
 * of the waits (Query) only when a slot is free. Which of these a run shows depends on what waited at that moment.
 */
const ADMITS_MARK = 'core/capacity.ts START_AT_ADMISSION';
const ADMITS = (why: string) => `an admission's other path (${why}); ${ADMITS_MARK}`;
const UNSEEN: Record<string, Record<string, string>> = {
  'create-video': {
    'dynamodb:Query': ADMITS('a creation finding a free slot reads the heads of the waits; here every slot was held'),
    'states:SendTaskSuccess': ADMITS('the next in line was a running wait; here a queued order'),
  },
  'place-order': {
    'dynamodb:Query': ADMITS('a free slot at the bot order'),
    'states:StartExecution:order': ADMITS('a free slot at the bot order: its execution started by its admission'),
    'states:SendTaskSuccess': ADMITS('a running wait next in line'),
  },
  'custom-methods': { 'states:SendTaskSuccess': ADMITS('a running wait next in line at a quick creation') },
  'await-slot': { 'states:StartExecution:order': ADMITS('a queued order next in line when a wait found a free slot') },

  'mark-failed': { 'states:SendTaskSuccess': ADMITS('a running wait next in line when a failure freed its slot') },
  'render-video': {
    'states:SendTaskSuccess': ADMITS('a running wait next in line when a deadline closed the order before its render'),
    'states:StartExecution:order': ADMITS('a queued order next in line when a deadline closed the order before its render'),
  },
  'review-lapsed': {
    'states:SendTaskSuccess': ADMITS('a running wait next in line when a slot was free at the lapse'),
    'states:StartExecution:order': ADMITS('a queued order next in line when a slot was free at the lapse'),
  },
  'get-video': { 'secretsmanager:GetSecretValue': `signs result_url and cover_url of a done order; ${NO_SECRET_HERE}` },
  sweep: {
    'states:SendTaskSuccess': ADMITS('a running wait next in line when the audit freed a slot'),
    'states:StopExecution:order':
      'stops the workflow of an order past its deadline (deadline_seconds is at least 60 s, which this run does not wait for; test/workflow/cancel.test.ts has the sweep stop one)',
  },
  recover: {
    'dynamodb:Query': `${DEADLINE_BY_EVENT}: the slot it held given back and the next order admitted`,
    'dynamodb:BatchGetItem': `${DEADLINE_BY_EVENT}: the render queue's shard states read for the next admission`,
    'dynamodb:PutItem': `${DEADLINE_BY_EVENT}: its refund's ledger entry`,
    'states:SendTaskSuccess': `${DEADLINE_BY_EVENT}: the order admitted in its place woken`,
    'states:StopExecution:order': `${DEADLINE_BY_EVENT}: its workflow stopped`,
    'states:StartExecution:delivery':
      'restarts the delivery of an event whose execution was stopped or failed with the event unsettled; this run stops no delivery (test/integration/recovery.test.ts does)',
  },
  'cancel-video': {
    'states:StartExecution:order': ADMITS('a queued order next in line when a cancel freed a slot'),
    'states:SendTaskSuccess':
      'wakes the next waiting order when the canceled one held a render slot (admitted, not yet started); here nothing waits when the order is canceled (test/workflow/cancel.test.ts races cancels with admissions)',
  },
  'list-videos': { 'secretsmanager:GetSecretValue': `signs the links of the done orders listed; ${NO_SECRET_HERE}` },
  'download-file': { 'secretsmanager:GetSecretValue': `checks the signature of a download link; ${NO_SECRET_HERE}` },
  'publish-order': {
    'secretsmanager:GetSecretValue': `signs the links of the video.done event; ${NO_SECRET_HERE}`,
    'states:SendTaskSuccess': ADMITS('a running wait next in line when a publish freed its slot; here queued orders'),
  },
};

describe('least privilege', () => {
  it('names every handler of the route and step tables, and nothing else; and every deployed function', () => {
    const others = [
      DEFAULT_ROUTE.handler,
      ...STEPS.map((s) => s.module),
      ...BOT_FUNCTIONS,
      ...JOBS.map((j) => j.name),
      ...INVOKED.map((f) => f.name),
      ...EXECUTION_LISTENERS.map((l) => l.name),
    ];
    assert.deepEqual(Object.keys(ACCESS).sort(), [...new Set([...ROUTES.map((r) => r.handler), ...others])].sort());
    assert.deepEqual(Object.keys(FUNCTION_ACCESS).sort(), [...new Set([...DEPLOYED_ROUTES.map((r) => r.handler), ...others])].sort());
  });

  it('grants each function every AWS action it performs on the local stack', async () => {
    const { allClients } = await import('../../functions/adapters/aws.ts');
    const observed = new Map<string, Set<string>>();
    for (const client of Object.values(await allClients())) {
      (client.middlewareStack as { add: (mw: unknown, opts: object) => void }).add(
        (next: (a: unknown) => Promise<unknown>, context: { commandName: string }) => async (args: { input: Record<string, any> }) => {
          const fn = invocation.getStore();
          const record = (action: string) => fn && (observed.get(fn) ?? observed.set(fn, new Set()).get(fn)!).add(action);
          for (const action of actionsOf(context.commandName, args.input)) record(action);
          try {
            return await next(args);
          } catch (err) {
            // A read of a missing key is answered 404 only to a caller that may list the bucket (403 to others).
            if (
              /^(Head|Get)ObjectCommand$/.test(context.commandName) &&
              (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
            ) {
              record('s3:ListBucket');
            }
            throw err;
          }
        },
        { step: 'initialize', name: 'accessRecorder' },
      );
    }
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((ok) => receiver!.listen(0, '127.0.0.1', ok));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    const { apiKey: key, userId } = await t.user({ balance: 10_000 });
    const hook = await t.api('POST', '/webhooks', { key, body: { url: hookUrl } });
    assert.equal(hook.status, 201);
    assert.equal((await t.api('GET', '/webhooks', { key })).status, 200);
    assert.equal((await t.api('POST', `/webhooks/${hook.body.id}/rotate`, { key, body: { overlap_seconds: 60 } })).status, 200);
    assert.equal((await t.api('POST', `/webhooks/${hook.body.id}/test`, { key })).body.delivered, true);
    assert.equal((await t.api('GET', '/balance', { key })).status, 200);
    assert.equal((await t.api('GET', '/balance/transactions', { key })).status, 200);
    // A low-balance alert the quick order's charge crosses: its creation starts the balance.low delivery.
    assert.equal((await t.api('POST', '/balance/alerts', { key, body: { below: 9_950 } })).status, 200);
    assert.equal((await t.api('GET', '/nothing-here', { key })).status, 404);

    // Pictures of the key's own, uploaded through their presigned URLs (no function runs the PUT), read and listed;
    // orders below name them, each a new one (a creation or a review checks an asset at its first use, then copies it
    // into the order; the renders read those copies).
    const upload = async (color: string) => {
      const lavfi = ['-f', 'lavfi', '-i', `color=c=${color}:s=64x64`];
      const png = execFileSync(FFMPEG, ['-v', 'error', ...lavfi, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']);
      const asset = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: png.length } });
      assert.equal(asset.status, 201, asset.text);
      const { 'Content-Length': _, ...headers } = asset.body.upload.headers;
      const put = await fetch(asset.body.upload.url, { method: 'PUT', headers, body: new Uint8Array(png) });
      assert.equal(put.status, 200);
      return asset.body.id as string;
    };
    const [logo, product, scene] = [await upload('0x3366FF'), await upload('0x33FF66'), await upload('0xFF3366')];
    assert.equal((await t.api('GET', `/assets/${logo}`, { key })).status, 200);
    assert.equal((await t.api('GET', '/assets', { key })).status, 200);

    // A quote (nothing charged), then orders.
    assert.equal((await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea', music: 'song' } })).status, 200);
    // A quick order to done, created twice with one Idempotency-Key (the second is a replay), then downloaded.
    const quick = { key, body: { prompt: 'A 10 second video about green tea, no music, no voiceover', logo }, headers: { 'idempotency-key': 'access-1' } };
    const created = await t.api('POST', '/videos:quick', quick);
    assert.equal(created.status, 201);
    assert.equal((await t.api('POST', '/videos:quick', quick)).status, 200);
    // The bot's order for the same account, then its repeat with the bot's key (a replay reads). With one slot it waits
    // for the quick order's: that order's publish admits it.
    const { handler: placeOrder } = await import('../../functions/bot/place-order.ts');
    const { invoke } = await import('../../local/invocations.ts');
    const { lambdaContext } = await import('../../local/gateway.ts');
    // It names the key's logo, and crosses the alert set again just above the balance (the bot charges the same account).
    const balanceNow = (await t.api('GET', '/balance', { key })).body.balance as number;
    assert.equal((await t.api('POST', '/balance/alerts', { key, body: { below: balanceNow + 1 } })).status, 200);
    // A picture no order named yet: the bot's creation checks it at its first use.
    const botLogo = await upload('0x777777');
    const botOrder = { user_id: userId, topic: 'Oolong', params: { ...VIDEO, logo: botLogo }, idempotency_key: 'bot-1' };
    const placed = await invoke('place-order', () => placeOrder(botOrder, lambdaContext('place-order')));
    assert.ok('id' in placed, JSON.stringify(placed));
    assert.equal(((await invoke('place-order', () => placeOrder(botOrder, lambdaContext('place-order')))) as { replayed: boolean }).replayed, true);
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error']);
    assert.equal((await waitForStatus(t, key, placed.id, ['done', 'error'])).status, 'done');
    assert.equal(done.status, 'done');
    assert.equal((await fetch(done.result_url, { redirect: 'manual' })).status, 302);
    // The key's orders, listed: both done, so their links are signed.
    assert.equal((await t.api('GET', '/videos', { key })).body.data.length, 2);
    // Its mp4 deleted (as the lifecycle rule or an account's deletion does): the download route answers 404.
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
    await (await aws().s3()).send(new DeleteObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: `orders/${done.id}/video.mp4` }));
    assert.equal((await fetch(done.result_url, { redirect: 'manual' })).status, 404);

    // Director mode: regen, then approve; and one order whose review deadline lapses.
    // Created twice with one Idempotency-Key too: the replay reads the order.
    // Set again above the balance: re-armed, the next charge (POST /videos) crosses it too.
    assert.equal((await t.api('POST', '/balance/alerts', { key, body: { below: 100_000 } })).status, 200);
    const directorRequest = { key, body: { topic: 'Tea', ...VIDEO, director_mode: true }, headers: { 'idempotency-key': 'access-2' } };
    const director = await t.api('POST', '/videos', directorRequest);
    assert.equal((await t.api('POST', '/videos', directorRequest)).status, 200);
    const lapsing = await t.api('POST', '/videos', { key, body: { topic: 'Coffee', ...VIDEO, director_mode: true } });
    assert.equal(director.status, 201);
    await waitForStatus(t, key, director.body.id, ['awaiting_review']);
    assert.equal((await t.api('POST', `/videos/${director.body.id}/review`, { key, body: { action: 'regen', note: 'shorter' } })).status, 200);
    await waitForStatus(t, key, director.body.id, ['awaiting_review']);
    // Edited, with a scene showing the key's picture (the review checks it and copies it into the order).
    const edited = { action: 'edit', text: `Caption: Tea time\nVisual: a cup\nImage: ${scene}` };
    assert.equal((await t.api('POST', `/videos/${director.body.id}/review`, { key, body: edited })).status, 200);
    assert.equal((await waitForStatus(t, key, director.body.id, ['done', 'error'])).status, 'done');
    assert.equal((await waitForStatus(t, key, lapsing.body.id, ['error', 'done'])).status, 'error');

    // A key without a webhook: its event is settled at the hand-over (no delivery started, its marker deleted).
    const bare = await t.user({ balance: 1000 });
    const unhooked = await t.api('POST', '/videos', { key: bare.apiKey, body: { topic: 'Kvass', ...VIDEO, director_mode: true } });
    await waitForStatus(t, bare.apiKey, unhooked.body.id, ['awaiting_review']);

    // A director order canceled at its review: refunded, its execution stopped.
    const canceled = await t.api('POST', '/videos', { key, body: { topic: 'Mate', ...VIDEO, director_mode: true } });
    await waitForStatus(t, key, canceled.body.id, ['awaiting_review']);
    assert.equal((await t.api('POST', `/videos/${canceled.body.id}/cancel`, { key })).body.error.code, 'canceled');
    // Director orders canceled right after their creation: queued, or running while their script is written.
    for (const topic of ['Sbiten', 'Mors', 'Kissel']) {
      const early = await t.api('POST', '/videos', { key, body: { topic, ...VIDEO, director_mode: true } });
      assert.equal((await t.api('POST', `/videos/${early.body.id}/cancel`, { key })).body.error?.code, 'canceled');
    }

    // A review whose wait was lost with a stop: the review starts a new execution.
    const lost = await t.api('POST', '/videos', { key, body: { topic: 'Milk', ...VIDEO, director_mode: true } });
    await waitForStatus(t, key, lost.body.id, ['awaiting_review']);
    // (Lost, not stopped: a stopped execution's status-change event would have the recovery start a new one at once.)
    const executionArn = `${t.stack.env.ORDER_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${lost.body.id}`;
    t.stack.sfn.lose(executionArn);
    const { services } = await import('../../functions/app/services.ts');
    assert.ok(
      await services().stores.orders.patch(lost.body.id, { status: 'awaiting_review', set: { reviewToken: 'a-token-of-a-wait-that-died' } }, new Date()),
    );
    assert.equal((await t.api('POST', `/videos/${lost.body.id}/review`, { key, body: { action: 'approve' } })).status, 200);
    assert.equal((await waitForStatus(t, key, lost.body.id, ['done', 'error'])).status, 'done');
    // The same with the dead wait's own token: Step Functions answers TaskTimedOut for it, as AWS does.
    const stopped = await t.api('POST', '/videos', { key, body: { topic: 'Cream', ...VIDEO, director_mode: true } });
    await waitForStatus(t, key, stopped.body.id, ['awaiting_review']);
    t.stack.sfn.lose(executionArn.replace(lost.body.id, stopped.body.id));
    assert.equal((await t.api('POST', `/videos/${stopped.body.id}/review`, { key, body: { action: 'approve' } })).status, 200);
    assert.equal((await waitForStatus(t, key, stopped.body.id, ['done', 'error'])).status, 'done');

    // An execution stopped from outside: its status-change event has the recovery name and start a new one.
    const outside = await t.api('POST', '/videos', { key, body: { topic: 'Whey', ...VIDEO, director_mode: true } });
    await waitForStatus(t, key, outside.body.id, ['awaiting_review']);
    const { StopExecutionCommand } = await import('@aws-sdk/client-sfn');
    await (await aws().sfn()).send(new StopExecutionCommand({ executionArn: executionArn.replace(lost.body.id, outside.body.id) }));
    let restarted = await services().stores.orders.get(outside.body.id);
    for (const end = Date.now() + 10_000; !restarted?.execution && Date.now() < end; restarted = await services().stores.orders.get(outside.body.id))
      await new Promise((r) => setTimeout(r, 100));
    assert.match(restarted?.execution ?? '', /-e\d+$/, 'the recovery started a new execution');
    assert.equal((await t.api('POST', `/videos/${outside.body.id}/cancel`, { key })).status, 200);

    // An order past its deadline when its render step runs (the deadline brought forward in the store, as the other
    // deadline tests do): the step cancels and refunds it instead of rendering, as the audit would.
    const late = await t.api('POST', '/videos', { key, body: { topic: 'Sbiten', ...VIDEO, director_mode: true, deadline_seconds: 600 } });
    await waitForStatus(t, key, late.body.id, ['awaiting_review']);
    const pastDue = { status: 'awaiting_review' as const, set: { deadlineAt: new Date(Date.now() - 1000).toISOString() } };
    assert.ok(await services().stores.orders.patch(late.body.id, pastDue, new Date()));
    const { handler: renderVideo } = await import('../../functions/steps/render-video.ts');
    const closedByRender = await invoke('render-video', () => renderVideo({ orderId: late.body.id }, lambdaContext('render-video'))).catch((err: Error) => err);
    assert.equal((closedByRender as Error).name, 'OrderClosed');
    assert.equal((await t.api('GET', `/videos/${late.body.id}`, { key })).body.error?.code, 'deadline_exceeded');

    // A failure that frees a slot another order waits for: the slot is held by an order whose run died (no such order
    // is left), a new order waits, and the failure handling of the dead one releases the slot and admits the new one.
    const { Capacity } = await import('../../functions/adapters/capacity.ts');
    const store = new Capacity(aws().ddb, t.stack.env.TABLE_NAME!);
    // One slot: one shard, 0, where every order waits.
    const dead = {
      orderId: 'vid_01jz0000000000000000000000',
      channel: 'api' as const,
      key: 'dead',
      token: 'dead',
      since: new Date().toISOString(),
      shard: 0,
    };
    // The orders before are done; the last one's publish releases its slot just after its status says done and then
    // admits whoever waits, which may be this test's holder: that admission cannot wake the made-up token and gives
    // the slot back, so the holder waits again and claims it once nothing else moves.
    const hold = async (w: typeof dead) => {
      for (let attempt = 0; attempt < 50; attempt++) {
        for (const end = Date.now() + 10_000; (await store.slots([0]))[0]!.holder && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
        await store.wait(w);
        const waiter = (await store.waiter(0, 'api', w.orderId, w.key))!;
        const [[slot], [state]] = await Promise.all([store.slots([0]), store.states([0])]);
        const claim = {
          slot: slot!,
          slotShard: 0,
          waiter,
          leaseUntil: new Date(Date.now() + 600_000),
          now: new Date(),
          streak: { from: state!.botRun, to: 0 },
          queue: state!,
        };
        if (await store.claim(claim)) return true;
      }
      return false;
    };
    assert.ok(await hold(dead), 'the dead order holds the slot');
    const waiting = await t.api('POST', '/videos', { key, body: { topic: 'Water', ...VIDEO, placement: { product: 'Spring', image: product } } });
    assert.equal((await t.api('GET', `/videos/${waiting.body.id}`, { key })).body.status, 'queued');
    const { handler: markFailed } = await import('../../functions/steps/mark-failed.ts');
    await invoke('mark-failed', () => markFailed({ orderId: dead.orderId, failure: { Error: 'States.Timeout' } }, lambdaContext('mark-failed')));
    assert.equal((await waitForStatus(t, key, waiting.body.id, ['done', 'error'])).status, 'done');

    // The sweep: a slot whose dead holder's lease ended is reclaimed and given to the order waiting for it; then an
    // order charged while Step Functions could not be reached is started; a director-mode one, left with its
    // unstarted marker, has its copy of the logo made (again) before its start.
    const ghost = { ...dead, orderId: 'vid_01jz0000000000000000000001', key: 'ghost', token: 'ghost', since: new Date().toISOString() };
    assert.ok(await hold(ghost), 'the ghost holds the slot');
    const blocked = await t.api('POST', '/videos', { key, body: { topic: 'Cocoa', ...VIDEO } });
    for (const end = Date.now() + 10_000; waitingIn((await store.states([0]))[0]!, 'api') === 0 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(await store.renew(0, ghost.orderId, new Date(Date.now() - 1000)), 'the ghost lease ends');
    const { handler: sweepJob } = await import('../../functions/jobs/sweep.ts');
    // (With no grace here, it may also start deliveries whose first step is on its way: a no-op, not counted on.)
    const first = await invoke('sweep', () => sweepJob({}, lambdaContext('sweep')));
    assert.deepEqual([first.started, first.reclaimed, first.admitted], [0, 1, 1]);
    await t.stack.sfn.goAway();
    const unstarted = await t.api('POST', '/videos', { key, body: { topic: 'Juice', ...VIDEO } });
    assert.equal(unstarted.status, 201);
    const marked = await t.api('POST', '/videos', { key, body: { topic: 'Kefir', ...VIDEO, director_mode: true, logo } });
    assert.equal(marked.status, 201);
    await t.stack.sfn.listen();
    const second = await invoke('sweep', () => sweepJob({}, lambdaContext('sweep')));
    // The director-mode one is started by the audit; the queued one waits in the queue and an admission starts it,
    // which is not a recovery.
    assert.deepEqual([second.started, second.reclaimed], [1, 0]);
    await waitForStatus(t, key, marked.body.id, ['awaiting_review']);
    for (const id of [blocked.body.id, unstarted.body.id]) assert.equal((await waitForStatus(t, key, id, ['done', 'error'])).status, 'done');
    // An event recorded while Step Functions could not be reached: the step that recorded it returns only after its
    // delivery's start has failed (the SDK's retries included), and the sweep starts that delivery.
    const lapse = await t.api('POST', '/videos', { key, body: { topic: 'Soda', ...VIDEO, director_mode: true } });
    const failed = await t.api('POST', '/videos', { key, body: { topic: 'Kvass', ...VIDEO, director_mode: true } });
    for (const o of [lapse, failed]) await waitForStatus(t, key, o.body.id, ['awaiting_review']);
    await t.stack.sfn.goAway();
    await invoke('mark-failed', () => markFailed({ orderId: failed.body.id, failure: { Error: 'States.TaskFailed' } }, lambdaContext('mark-failed')));
    const { handler: reviewLapsed } = await import('../../functions/steps/review-lapsed.ts');
    await assert.rejects(
      invoke('review-lapsed', () => reviewLapsed({ orderId: lapse.body.id, failure: { Error: 'States.Timeout' } }, lambdaContext('review-lapsed'))),
      { name: 'OrderClosed' },
    );
    // A quick order whose execution began before its admission (its wait had a token) plans in its own step, Plan:
    // run here as that step would run it, while its admission cannot start it.
    const unplanned = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about juice, no music, no voiceover' } });
    assert.equal(unplanned.status, 201);
    const { handler: planStep } = await import('../../functions/steps/plan-order.ts');
    await invoke('plan-order', () => planStep({ orderId: unplanned.body.id, execution: unplanned.body.id }, lambdaContext('plan-order')));
    assert.equal((await services().stores.orders.get(unplanned.body.id))!.planned, true);
    await t.stack.sfn.listen();
    assert.ok((await invoke('sweep', () => sweepJob({}, lambdaContext('sweep')))).sent >= 1, 'the sweep started the lost delivery');
    const errorEvent = `${lapse.body.id}:error`;
    let delivered = false;
    for (const end = Date.now() + 30_000; !delivered && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      const listed = await t.api('GET', `/webhooks/${hook.body.id}/deliveries`, { key });
      delivered = listed.body.data.some((a: { event_id: string; outcome: string }) => a.event_id === errorEvent && a.outcome === 'delivered');
    }
    assert.ok(delivered, 'the error event reached the receiver');

    const deliveries = await t.api('GET', `/webhooks/${hook.body.id}/deliveries`, { key });
    assert.equal(deliveries.status, 200);
    assert.ok(deliveries.body.data.length >= 4, 'the events were delivered');
    // The delivered error event sent again, and a replay of dropped ones (none).
    assert.deepEqual((await t.api('POST', `/webhooks/${hook.body.id}/resend`, { key, body: { event_id: errorEvent } })).body.resent, [errorEvent]);
    assert.deepEqual((await t.api('POST', `/webhooks/${hook.body.id}/resend`, { key, body: { since: '2026-01-01T00:00:00Z' } })).body.resent, []);
    assert.equal((await t.api('DELETE', `/webhooks/${hook.body.id}`, { key })).status, 204);
    // The picture deleted, its bytes replaced by the empty marker (the orders keep their copies).
    assert.equal((await t.api('DELETE', `/assets/${logo}`, { key })).status, 204);

    // By the function each call ran as: the custom methods' function runs several handlers, with the union of their grants.
    const missing: string[] = [];
    for (const [fn, actions] of observed) {
      const allowed = granted(FUNCTION_ACCESS[fn] ?? {});
      for (const action of actions) if (!allowed.has(action)) missing.push(`${fn}: ${action}`);
    }
    assert.deepEqual(missing, [], `performed but not granted:\n${missing.join('\n')}`);
    // Least privilege the other way: a grant no code performs here is removed, or listed in UNSEEN with its reason.
    const unused: string[] = [];
    for (const [fn, access] of Object.entries(FUNCTION_ACCESS)) {
      for (const action of granted(access)) {
        if (!observed.get(fn)?.has(action) && !UNSEEN[fn]?.[action]) unused.push(`${fn}: ${action}`);
      }
    }
    assert.deepEqual(unused, [], `granted but never performed (remove it, or list it in UNSEEN with why):\n${unused.join('\n')}`);
    // And UNSEEN holds no stale excuse: each entry is granted and indeed not seen (an admission's path, which depends on
    // what waited at that moment, may be seen or not).
    const stale = Object.entries(UNSEEN).flatMap(([fn, actions]) =>
      Object.entries(actions)
        .filter(([action, why]) => !granted(FUNCTION_ACCESS[fn] ?? {}).has(action) || (observed.get(fn)?.has(action) && !why.includes(ADMITS_MARK)))
        .map(([action]) => action)
        .map((action) => `${fn}: ${action}`),
    );
    assert.deepEqual(stale, [], `listed in UNSEEN but not granted, or performed after all:\n${stale.join('\n')}`);
    // Every function with grants ran, so the check above covered them all (the others make no AWS call).
    const ran = [...observed.keys()].sort();
    assert.deepEqual(
      ran,
      Object.keys(FUNCTION_ACCESS)
        .filter((f) => granted(FUNCTION_ACCESS[f]!).size > 0)
        .sort(),
    );
  });
});
