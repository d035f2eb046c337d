/**
 * The deploy's preflight command (bin/preflight.ts) end to end: the stage's settings as `cdk synth` reads them, the
 * real SDK clients against a loopback stand-in of Lambda and CloudFormation (test/support/deploy-apis.ts), and the
 * exit code and lines a pipeline sees, for a first create in a new account, an update holding its reservation, an
 * override of renderSlots and a role that may not ask.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { CLOUDFRONT_UNVERIFIED, SUPPORT_CENTER } from '../../lib/preflight.ts';
import { STAGES } from '../../lib/stages.ts';
import { type DeployAccount, startDeployApis } from '../support/deploy-apis.ts';

async function preflight(account: DeployAccount, ...args: string[]): Promise<{ code: number; out: string; calls: string[] }> {
  const apis = await startDeployApis(account);
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/preflight.ts', ...args], { cwd: ROOT, env: { ...env, ...apis.env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const [code] = (await once(child, 'close')) as [number];
    return { code, out, calls: apis.calls };
  } finally {
    await apis.stop();
  }
}

describe('npm run preflight', () => {
  it("refuses prod's first create in a new account (quota 50), printing the quota request for the stage's region", async () => {
    const { code, out, calls } = await preflight({ quota: 50, unreserved: 50, stacks: {}, reserved: {} }, '--stage', 'prod');
    assert.equal(code, 1, out);
    assert.ok(
      out.includes(
        `aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000 --region ${STAGES.prod.region}`,
      ),
      out,
    );
    // prod's 6 render slots, 2 test-lane slots and 10 deliveries.
    assert.match(out, /would reserve 18 and leave 32 unreserved/);
    assert.deepEqual(calls.sort(), ['cloudformation:DescribeStacks VideoService-prod', 'lambda:GetAccountSettings']);
    // prod's edge: no distribution yet, so the warning that a new account may be refused one, with the support path.
    assert.ok(out.includes(`warning: VideoService-prod creates a CloudFront distribution`), out);
    assert.ok(out.includes(CLOUDFRONT_UNVERIFIED) && out.includes(SUPPORT_CENTER), out);
    assert.match(out, /-c edge=false/);
  });

  it("warns about CloudFront's account verification only where the edge is on and the stack has no distribution yet", async () => {
    const roomy = { quota: 1000, unreserved: 1000, reserved: {} };
    const first = await preflight({ ...roomy, stacks: {} }, '--stage', 'prod');
    // A warning: the concurrency fits, so the exit code stays 0.
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /^warning: VideoService-prod creates a CloudFront distribution/m);
    const withIt = await preflight({ ...roomy, stacks: { 'VideoService-prod': { DistributionId: 'E2EXAMPLE' } } }, '--stage', 'prod');
    assert.equal(withIt.code, 0, withIt.out);
    assert.match(withIt.out, /^ok: VideoService-prod has its CloudFront distribution \(E2EXAMPLE\)$/m);
    assert.doesNotMatch(withIt.out, /warning/);
    for (const args of [
      ['--stage', 'dev'],
      ['--stage', 'prod', '-c', 'edge=false'],
    ]) {
      const off = await preflight({ ...roomy, stacks: {} }, ...args);
      assert.equal(off.code, 0, off.out);
      assert.doesNotMatch(off.out, /CloudFront/, args.join(' '));
    }
  });

  it("passes an update that keeps the functions' reservations at the account minimum, reading them from the stack", async () => {
    const account = {
      quota: 1000,
      unreserved: 100,
      stacks: {
        'VideoService-prod': { RenderFunctionName: 'VideoService-prod-steprendervideo-AbC', DeliverFunctionName: 'VideoService-prod-stepdeliverevent-DeF' },
      },
      reserved: { 'VideoService-prod-steprendervideo-AbC': 8, 'VideoService-prod-stepdeliverevent-DeF': 10 },
    };
    const { code, out, calls } = await preflight(account, '--stage', 'prod');
    assert.equal(code, 0, out);
    assert.match(out, /^ok: VideoService-prod in eu-central-1 reserves 18 and leaves 100 unreserved/m);
    for (const fn of ['VideoService-prod-steprendervideo-AbC', 'VideoService-prod-stepdeliverevent-DeF'])
      assert.ok(calls.includes(`lambda:GetFunctionConcurrency ${fn}`), calls.join());
    // The same with one slot more, given as the deploy would be (outright, or from a demand that needs it): refused,
    // naming the largest that fits.
    for (const more of [
      await preflight(account, '--stage', 'prod', '-c', 'renderSlots=7'),
      await preflight(account, '--stage', 'prod', '-c', 'peakOrdersPerHour=1100'),
    ]) {
      assert.equal(more.code, 1, more.out);
      assert.match(more.out, /renderSlots 7 \+ testRenderSlots 2 \+ deliveryConcurrency 10/);
      assert.match(more.out, /lower renderSlots to 6 or less/);
    }
  });

  it('stops with exit 2 and the reason when it may not ask, or the stage is unknown', async () => {
    const denied = await preflight({ quota: 1000, unreserved: 1000, stacks: {}, reserved: {}, denied: true }, '--stage', 'dev');
    assert.equal(denied.code, 2, denied.out);
    assert.match(denied.out, /could not read the account's Lambda concurrency in eu-central-1 \(AccessDeniedException/);
    const unknown = await preflight({ quota: 1000, unreserved: 1000, stacks: {}, reserved: {} }, '--stage', 'qa');
    assert.equal(unknown.code, 2, unknown.out);
    assert.match(unknown.out, /Context stage must be one of dev, prod/);
  });
});
