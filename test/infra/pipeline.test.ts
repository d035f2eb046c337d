/**
 * The deploy pipeline (docs/pipeline.yml, a GitHub Actions workflow): prod's `cdk diff` runs before the approval is
 * asked, where the reviewers read it, by a role that cannot deploy; the approved job deploys the very assembly that was
 * diffed. A job with an environment whose required reviewers must approve waits for them before any of its steps run,
 * so a diff inside the approved job would be shown only after the approval.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import parsers from '@stoplight/spectral-parsers';
import { ROOT } from '../../lib/paths.ts';

interface Job {
  needs?: string | string[];
  environment?: string | { name: string };
  steps: { run?: string; uses?: string; with?: Record<string, string> }[];
}
const parsed = parsers.Yaml.parse(readFileSync(join(ROOT, 'docs', 'pipeline.yml'), 'utf8'));
const jobs = (parsed.data as { jobs: Record<string, Job> }).jobs;

const envOf = (j: Job) => (typeof j.environment === 'string' ? j.environment : j.environment?.name);
const needsOf = (j: Job) => [j.needs ?? []].flat();
/** Every job `name` waits for, directly or through others. */
const upstream = (name: string): Set<string> => new Set(needsOf(jobs[name]!).flatMap((n) => [n, ...upstream(n)]));
const runs = (j: Job) => j.steps.map((s) => s.run ?? '');
const prodCommand = (run: string, verb: string) => new RegExp(`cdk ${verb}\\b`).test(run) && /stage=prod|cdk\.out\.prod|VideoService-prod/.test(run);
const jobsRunning = (verb: string) => Object.keys(jobs).filter((n) => runs(jobs[n]!).some((r) => prodCommand(r, verb)));

describe('the deploy pipeline', () => {
  it('parses as YAML', () => {
    assert.deepEqual(parsed.diagnostics, []);
  });

  it("shows prod's diff before the approval: in a job the approved prod job waits for, outside the prod environment", () => {
    const [deploy, ...moreDeploys] = jobsRunning('deploy');
    assert.ok(deploy && moreDeploys.length === 0, `one job deploys prod: ${jobsRunning('deploy')}`);
    assert.equal(envOf(jobs[deploy]!), 'prod', 'the deploy waits for the prod environment’s reviewers');
    const diffs = jobsRunning('diff');
    assert.ok(diffs.length > 0, 'a job runs cdk diff of prod');
    for (const d of diffs) {
      assert.notEqual(envOf(jobs[d]!), 'prod', `${d}: outside the approval`);
      assert.ok(upstream(deploy).has(d), `${deploy} waits for ${d}`);
      // Where the reviewers see it: the run's summary.
      assert.ok(
        runs(jobs[d]!).some((r) => prodCommand(r, 'diff') && r.includes('GITHUB_STEP_SUMMARY')),
        `${d} writes the diff into the summary`,
      );
    }
    // The approved job diffs nothing of its own after the approval.
    assert.ok(!diffs.includes(deploy));
  });

  it('deploys the assembly that was diffed, and diffs with a role that cannot deploy', () => {
    const [deploy] = jobsRunning('deploy');
    const [diff] = jobsRunning('diff');
    const deployJob = jobs[deploy!]!;
    const diffJob = jobs[diff!]!;
    assert.ok(runs(diffJob).some((r) => /cdk synth .*-o cdk\.out\.prod/.test(r)) && runs(diffJob).some((r) => /cdk diff --app cdk\.out\.prod/.test(r)));
    assert.ok(!runs(deployJob).some((r) => /cdk synth/.test(r)), 'no second synth in the approved job');
    assert.ok(runs(deployJob).some((r) => /cdk deploy --app cdk\.out\.prod /.test(r)));
    const artifact = (j: Job, action: string) => j.steps.find((s) => s.uses?.startsWith(`actions/${action}-artifact@`))?.with?.name;
    assert.ok(artifact(diffJob, 'upload'), 'the diffed assembly is kept');
    assert.equal(artifact(deployJob, 'download'), artifact(diffJob, 'upload'));
    // A template diff reads with the bootstrap's lookup role; a change set would need the deploy role.
    assert.ok(runs(diffJob).some((r) => r.includes('--method=template')));
    const role = (j: Job) => j.steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'))?.with?.['role-to-assume'];
    assert.ok(role(diffJob) && role(deployJob) && role(diffJob) !== role(deployJob), `${role(diffJob)} / ${role(deployJob)}`);
  });

  it('runs the preflight before every diff and deploy, and dev before prod', () => {
    for (const [name, job] of Object.entries(jobs)) {
      const r = runs(job);
      const first = r.findIndex((x) => /cdk (diff|deploy)/.test(x));
      if (first >= 0)
        assert.ok(
          r.slice(0, first).some((x) => x.includes('npm run -s preflight')),
          name,
        );
    }
    const devDeploy = Object.keys(jobs).find((n) => runs(jobs[n]!).some((r) => /cdk deploy -c stage=dev/.test(r)))!;
    for (const n of [...jobsRunning('diff'), ...jobsRunning('deploy')]) assert.ok(upstream(n).has(devDeploy), n);
  });
});
