/**
 * npm run bench: every figure beside its target, measured in this run on this machine, printed part by part and
 * written to reports/bench.{md,json,svg} (bench/report.ts). `npm run bench -- <part>` runs one part and only prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchApi } from './api.ts';
import { benchCost } from './cost.ts';
import { benchLambdas } from './lambdas.ts';
import { benchQueue } from './queue.ts';
import { reliabilityFigures } from './reliability.ts';
import { emit, readFigures, writeReport, type Figure } from './report.ts';
import { benchRender } from './render.ts';
import { benchScale } from './scale-report.ts';
import { benchTests } from './tests.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchWorkflow } from './workflow.ts';

const only = process.argv[2];
/** The render's stages as bin/render.ts names them (functions/generator/render.ts). */
const STAGES: Record<string, string> = {
  pictures: 'pictures (rasterized)',
  backgrounds: 'backgrounds and captions laid out',
  stills: 'stills (ffmpeg)',
  video: 'video encode (ffmpeg)',
  voice: 'voice (eSpeak NG)',
  music: 'music',
  mix: 'soundtrack mixed',
  aac: 'soundtrack encoded (AAC)',
  mux: 'mux',
};
// Each part gets its own process: a process's services are bound to the one local stack it started.
if (!only) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const file = join(dir, 'figures.jsonl');
  for (const part of ['api', 'render', 'workflow', 'queue', 'webhooks', 'lambdas', 'cost', 'scale', 'reliability']) {
    const res = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), part], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_FIGURES: file },
    });
    if (res.status !== 0) process.exit(res.status ?? 1);
  }
  const md = writeReport(readFigures(file));
  rmSync(dir, { recursive: true, force: true });
  console.log(`\n${md.split('\n').at(-2)}\nWritten: reports/bench.md, reports/bench.json, reports/bench.svg`);
  process.exit(0);
}
if (only === 'api') await benchApi();
if (only === 'render') {
  const { runs, median: r, peakMb } = await benchRender();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const floorWhat =
    'ffmpeg alone encoding a plain video of the same length with the same encoder settings; a smaller work: no plan, script, voice, music, scenes or captions';
  const shares = runs.map((x) => pct(x.ofFloor)).join(', ');
  console.log("\n| render run (in order) | job | floor (before and after, mean) | share of the floor's speed | peak memory |");
  console.log('|---|---|---|---|---|');
  for (const [i, x] of runs.entries()) {
    console.log(`| ${i + 1} | ${x.jobSeconds.toFixed(2)} s | ${x.floorSeconds.toFixed(2)} s | ${pct(x.ofFloor)} | ${x.peakMb.toFixed(0)} MB |`);
  }
  console.log(`\n| render (embedded generator, 1080x1920 30 fps; the run of median share, ${runs.length} runs) | measured | target |`);
  console.log('|---|---|---|');
  console.log(`| video length | ${r.videoSeconds.toFixed(1)} s | 30 s |`);
  console.log(`| job time, prompt to mp4 (plan, script, voice, music, ffmpeg) | ${r.jobSeconds.toFixed(2)} s | |`);
  console.log(`|   of which plan and script | ${(r.planSeconds * 1000).toFixed(0)} ms | |`);
  for (const t of r.stages)
    console.log(`|   stage: ${STAGES[t.stage] ?? t.stage} (${t.start.toFixed(2)}-${t.end.toFixed(2)} s) | ${(t.end - t.start).toFixed(2)} s | |`);
  console.log(
    `| speed (video seconds per second of the job) | ${(r.videoSeconds / r.jobSeconds).toFixed(2)}x | >= 3x ${verdict(r.videoSeconds / r.jobSeconds >= 3)} |`,
  );
  console.log(`| speed as a share of the floor's (median of ${runs.length}: ${shares}) | ${pct(r.ofFloor)} | >= 70% ${verdict(r.ofFloor >= 0.7)} |`);
  console.log(`| the command, spawn to exit (+ Node, tsx and imports) | ${r.commandSeconds.toFixed(2)} s | |`);
  console.log(`| peak memory (render process + ffmpeg, highest of the runs) | ${peakMb.toFixed(0)} MB | < 600 MB ${verdict(peakMb < 600)} |`);
  console.log(`| floor: ${floorWhat} | ${r.floorSeconds.toFixed(2)} s | |`);
  const section = 'Render (embedded generator, 1080x1920 30 fps)';
  const floor = { value: r.floorSeconds, what: floorWhat };
  emit([
    { section, name: 'video length', value: r.videoSeconds, unit: 's' },
    { section, name: 'job time, prompt to mp4 (plan, script, voice, music, ffmpeg)', value: r.jobSeconds, unit: 's', floor },
    { section, name: 'of the job: plan and script', value: r.planSeconds * 1000, unit: 'ms' },
    ...r.stages.map((t) => ({
      section,
      name: `of the render: ${STAGES[t.stage] ?? t.stage}`,
      value: t.end - t.start,
      unit: 's',
      note: `from ${t.start.toFixed(2)} to ${t.end.toFixed(2)} s`,
    })),
    {
      section,
      name: 'speed (video seconds per second of the job)',
      value: r.videoSeconds / r.jobSeconds,
      unit: 'x',
      target: { op: '>=', limit: 3 },
      floor: { value: r.videoSeconds / r.floorSeconds, what: 'ffmpeg alone on a plain video, as above: a smaller work' },
    },
    {
      section,
      name: "speed as a share of the floor's (its seconds over the job's)",
      value: 100 * r.ofFloor,
      unit: '%',
      target: { op: '>=', limit: 70 },
      note: `median of ${runs.length} runs (${shares}), each beside the floors encoded right before and after it; the floor is the same encoder on a plain video: the job adds pictures, motion, captions, voice and music`,
    },
    { section, name: '`npm run render`, spawn to exit (the job + Node, tsx and imports)', value: r.commandSeconds, unit: 's' },
    {
      section,
      name: 'peak memory (render process + ffmpeg)',
      value: peakMb,
      unit: 'MB',
      target: { op: '<', limit: 600 },
      note: `highest of ${runs.length} runs`,
    },
  ]);
}
if (only === 'workflow') {
  const w = await benchWorkflow();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| order workflow (local stack) | measured | target |');
  console.log('|---|---|---|');
  console.log(`| state transitions, quick order | ${w.quickTransitions} | <= 12 ${verdict(w.quickTransitions <= 12)} |`);
  console.log(`| state transitions, director mode with one approve | ${w.directorTransitions} | |`);
  console.log(`| creation to done, 15 s quick order | ${w.createToDoneSeconds.toFixed(1)} s | < 30 s ${verdict(w.createToDoneSeconds < 30)} |`);
  const section = 'Order workflow (local stack)';
  emit([
    { section, name: 'state transitions, quick order', value: w.quickTransitions, unit: 'transitions', target: { op: '<=', limit: 12 } },
    { section, name: 'state transitions, director mode with one approve', value: w.directorTransitions, unit: 'transitions' },
    { section, name: 'creation to done, 15 s quick order', value: w.createToDoneSeconds, unit: 's', target: { op: '<', limit: 30 } },
  ]);
}
if (only === 'queue') {
  const q = await benchQueue();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`\n| render queue at peak (local stack, 2 slots, ${q.orders.api} API + ${q.orders.bot} bot orders of 10 s) | measured | target |`);
  console.log('|---|---|---|');
  console.log(`| slot utilisation while orders wait | ${pct(q.utilisation)} | >= 90% ${verdict(q.utilisation >= 0.9)} |`);
  console.log(`| one render, admission to done, p50 | ${q.renderP50.toFixed(1)} s | |`);
  console.log(`| bot wait for a slot, p50 | ${q.botWaitP50.toFixed(1)} s | < one render ${verdict(q.botWaitP50 < q.renderP50)} |`);
  console.log(`| API wait for a slot, p50 | ${q.apiWaitP50.toFixed(1)} s | |`);
  console.log(`| eta error of the creation answer, p50 | ${pct(q.etaErrorP50)} | <= 25% ${verdict(q.etaErrorP50 <= 0.25)} |`);
  console.log(`| eta error of the creation answer, p90 | ${pct(q.etaErrorP90)} | |`);
  console.log(`| state transitions per quick order with its wait, max | ${q.transitionsMax} | <= 12 ${verdict(q.transitionsMax <= 12)} |`);
  console.log(`| failed orders | ${q.failures} | 0 ${verdict(q.failures === 0)} |`);
  console.log(`| burst, first creation to last done | ${q.burstSeconds.toFixed(0)} s | |`);
  const section = `Render queue at peak (local stack, 2 slots, ${q.orders.api} API + ${q.orders.bot} bot quick orders of 10 s)`;
  const render = { value: q.renderP50, what: 'one render, admission to done, p50: the target of the bot wait' };
  emit([
    { section, name: 'slot utilisation while orders wait', value: q.utilisation * 100, unit: '%', target: { op: '>=', limit: 90 } },
    { section, name: 'one render, admission to done, p50', value: q.renderP50, unit: 's' },
    { section, name: 'bot wait for a slot, p50', value: q.botWaitP50, unit: 's', target: { op: '<', limit: q.renderP50 }, floor: render },
    { section, name: 'API wait for a slot, p50', value: q.apiWaitP50, unit: 's' },
    {
      section,
      name: 'eta error of the creation answer (abs(eta - actual) / actual), p50',
      value: q.etaErrorP50 * 100,
      unit: '%',
      target: { op: '<=', limit: 25 },
    },
    { section, name: 'eta error of the creation answer, p90', value: q.etaErrorP90 * 100, unit: '%' },
    { section, name: 'state transitions per quick order with its wait, max', value: q.transitionsMax, unit: 'transitions', target: { op: '<=', limit: 12 } },
    { section, name: 'failed orders', value: q.failures, unit: 'orders', target: { op: '<=', limit: 0 } },
    { section, name: 'burst, first creation to last done', value: q.burstSeconds, unit: 's' },
  ]);
}
if (only === 'webhooks') {
  const h = await benchWebhooks();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| webhooks (local stack, receiver on loopback) | measured | target |');
  console.log('|---|---|---|');
  console.log(`| events received | ${h.count} of 20 | 20 |`);
  console.log(`| status change to arrival, p50 | ${h.p50} ms | < 1000 ms ${verdict(h.p50 < 1000)} |`);
  console.log(`| status change to arrival, max | ${h.max} ms | < 1000 ms ${verdict(h.max < 1000)} |`);
  console.log(`| floor: the same POST straight to the receiver, p50 | ${h.floorP50.toFixed(1)} ms | |`);
  const section = 'Webhooks (local stack, receiver on loopback)';
  const floor = { value: h.floorP50, what: 'a bare POST to the receiver: a part of the work only, no event, workflow or signature' };
  emit([
    { section, name: 'events received of 20', value: h.count, unit: 'events', target: { op: '>=', limit: 20 } },
    { section, name: 'status change to arrival, p50', value: h.p50, unit: 'ms', target: { op: '<', limit: 1000 }, floor },
    { section, name: 'status change to arrival, max', value: h.max, unit: 'ms', target: { op: '<', limit: 1000 }, floor },
  ]);
}
if (only === 'lambdas') {
  const { figures, floorMs } = benchLambdas();
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  console.log(
    '\n| Lambda bundle (cdk synth) | KB, SDK inside | KB, SDK left out (before) | import ms, SDK inside | import ms, SDK from node_modules (before) | target |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const f of figures.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))) {
    const target = f.kind === 'http' ? `< 1024 KB ${verdict(f.bytes < 1024 * 1024)}, < 150 ms ${verdict(f.importMs < 150)}` : '';
    console.log(
      `| ${f.kind} ${f.name} | ${kb(f.bytes)} | ${kb(f.sdkOutsideBytes)} | ${f.importMs.toFixed(1)} | ${f.sdkOutsideImportMs.toFixed(1)} | ${target} |`,
    );
  }
  console.log(`| floor: an empty module | | | ${floorMs.toFixed(1)} | | |`);
  const http = figures.filter((f) => f.kind === 'http');
  const largest = (by: (f: (typeof http)[number]) => number) => http.reduce((a, b) => (by(b) > by(a) ? b : a));
  const ratios = http.map((f) => f.importMs / f.sdkOutsideImportMs).sort((a, b) => a - b);
  const ratio = ratios[Math.floor(ratios.length / 2)]!;
  console.log(
    `| API import, SDK inside over SDK from node_modules, median of the functions | | | ${ratio.toFixed(2)}x | | <= 1.10x ${verdict(ratio <= 1.1)} |`,
  );
  const section = 'Lambda bundles (cdk synth, the AWS SDK inside)';
  const floor = { value: floorMs, what: 'importing an empty module in the same fresh process: the part of an import that is not the bundle' };
  const [big, bigBefore, slow, slowBefore] = [
    largest((f) => f.bytes),
    largest((f) => f.sdkOutsideBytes),
    largest((f) => f.importMs),
    largest((f) => f.sdkOutsideImportMs),
  ];
  const out: Figure[] = [
    { section, name: `largest API bundle (${big.name})`, value: big.bytes / 1024, unit: 'KB', target: { op: '<', limit: 1024 } },
    { section, name: `largest API bundle with the SDK left out, as before (${bigBefore.name})`, value: bigBefore.sdkOutsideBytes / 1024, unit: 'KB' },
    { section, name: `slowest API import, fresh process (${slow.name})`, value: slow.importMs, unit: 'ms', target: { op: '<', limit: 150 }, floor },
    {
      section,
      name: `slowest API import with the SDK from node_modules, as before (${slowBefore.name})`,
      value: slowBefore.sdkOutsideImportMs,
      unit: 'ms',
      floor,
    },
    {
      section,
      name: 'API import, SDK inside over SDK from node_modules (median of the functions)',
      value: ratio,
      unit: 'x',
      target: { op: '<=', limit: 1.1 },
      note: 'each pair imported alternately in fresh processes, 5 times',
    },
  ];
  for (const f of figures.filter((x) => x.kind === 'step'))
    out.push({ section, name: `step ${f.name} bundle (SDK left out: ${kb(f.sdkOutsideBytes)} KB)`, value: f.bytes / 1024, unit: 'KB' });
  emit(out);
}
if (only === 'cost') {
  const c = await benchCost();
  const count = (x: number) => (Number.isInteger(x) ? `${x}` : x < 0.001 ? x.toExponential(2) : x.toFixed(3));
  console.log(`\n| one quick order on AWS, polled ${c.polls} times as Retry-After says (counts measured on the local stack) | count | USD |`);
  console.log('|---|---|---|');
  for (const l of c.lines) console.log(`| ${l.what} | ${count(l.count)} | ${l.usd.toFixed(7)} |`);
  console.log(`| total without the render | | ${c.withoutRender.toFixed(7)} (target < 0.0005 ${c.withoutRender < 0.0005 ? 'OK' : 'MISSED'}) |`);
  console.log(`| total with the render | | ${c.total.toFixed(7)} |`);
  const section = 'AWS cost of one quick order (counts measured on the local stack; the render at its measured time)';
  emit([
    ...c.lines.map((l) => ({ section, name: `${l.what} (${count(l.count)})`, value: l.usd, unit: 'USD' })),
    { section, name: 'total without the render', value: c.withoutRender, unit: 'USD', target: { op: '<', limit: 0.0005 } },
    { section, name: 'total with the render', value: c.total, unit: 'USD' },
  ]);
}
if (only === 'scale') await benchScale();
if (only === 'reliability') {
  const figures = reliabilityFigures();
  for (const f of figures) console.log(`| ${f.section} | ${f.name} | ${f.value} ${f.unit} |`);
  emit(figures);
}
if (only === 'tests') emit(benchTests());
