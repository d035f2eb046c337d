/** npm run bench: every figure beside its target, measured in this run on this machine. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchApi } from './api.ts';
import { benchCost } from './cost.ts';
import { benchLambdas } from './lambdas.ts';
import { benchRender } from './render.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchWorkflow } from './workflow.ts';

const only = process.argv[2];
// Each part gets its own process: a process's services are bound to the one local stack it started.
if (!only) {
  for (const part of ['api', 'render', 'workflow', 'webhooks', 'lambdas', 'cost']) {
    const res = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), part], { stdio: 'inherit' });
    if (res.status !== 0) process.exit(res.status ?? 1);
  }
  process.exit(0);
}
if (only === 'api') await benchApi();
if (only === 'render') {
  const r = await benchRender();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| render (embedded generator, 1080x1920 30 fps) | measured | target |');
  console.log('|---|---|---|');
  console.log(`| video length | ${r.videoSeconds.toFixed(1)} s | 30 s |`);
  console.log(`| render time (plan, write, voice, music, ffmpeg) | ${r.renderSeconds.toFixed(1)} s | |`);
  console.log(`| speed (rendered seconds per wall second) | ${r.speed.toFixed(2)}x | >= 3x ${verdict(r.speed >= 3)} |`);
  console.log(`| peak memory (render process + ffmpeg) | ${r.peakMb.toFixed(0)} MB | < 600 MB ${verdict(r.peakMb < 600)} |`);
}
if (only === 'workflow') {
  const w = await benchWorkflow();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| order workflow (local stack) | measured | target |');
  console.log('|---|---|---|');
  console.log(`| state transitions, quick order | ${w.quickTransitions} | <= 12 ${verdict(w.quickTransitions <= 12)} |`);
  console.log(`| state transitions, director mode with one approve | ${w.directorTransitions} | |`);
  console.log(`| creation to done, 15 s quick order | ${w.createToDoneSeconds.toFixed(1)} s | < 30 s ${verdict(w.createToDoneSeconds < 30)} |`);
}
if (only === 'webhooks') {
  const h = await benchWebhooks();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| webhooks (local stack, receiver on loopback) | measured | target |');
  console.log('|---|---|---|');
  console.log(`| events received | ${h.count} of 20 | 20 |`);
  console.log(`| status change to arrival, p50 | ${h.p50} ms | < 1000 ms ${verdict(h.p50 < 1000)} |`);
  console.log(`| status change to arrival, max | ${h.max} ms | < 1000 ms ${verdict(h.max < 1000)} |`);
}
if (only === 'lambdas') {
  const figures = benchLambdas();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| Lambda bundle (cdk synth) | bundle KB (minified) | import ms (fresh process, median of 5) | target |');
  console.log('|---|---|---|---|');
  for (const f of figures.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))) {
    const target = f.kind === 'http' ? `< 300 KB ${verdict(f.bytes < 300 * 1024)}, < 150 ms ${verdict(f.importMs < 150)}` : '';
    console.log(`| ${f.kind} ${f.name} | ${(f.bytes / 1024).toFixed(1)} | ${f.importMs.toFixed(1)} | ${target} |`);
  }
}
if (only === 'cost') {
  const c = await benchCost();
  console.log('\n| one quick order on AWS, rendering excluded (counts measured on the local stack) | count | USD |');
  console.log('|---|---|---|');
  for (const l of c.lines) console.log(`| ${l.what} | ${Number.isInteger(l.count) ? l.count : l.count.toFixed(3)} | ${l.usd.toFixed(7)} |`);
  console.log(`| total | | ${c.total.toFixed(7)} (target < 0.0005 ${c.total < 0.0005 ? 'OK' : 'MISSED'}) |`);
  console.log(`\nThe render step took ${(c.renderMs / 1000).toFixed(1)} s here (excluded above; on AWS it runs at 3008 MB, x86-64).`);
}
