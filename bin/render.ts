/**
 * npm run render -- "<prompt>" [--out FILE] [--trial]: plans, writes and renders one video with the embedded
 * generator, printing progress, and says where the mp4, the cover and the posting pack are.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { validate } from '../functions/app/validate.ts';
import { quickVideoBody } from '../functions/contract/orders.ts';
import { planFromPrompt } from '../functions/generator/planner.ts';
import { EmbeddedRenderer } from '../functions/generator/render.ts';
import { formatScript } from '../functions/core/script-text.ts';
import { writeScript } from '../functions/generator/writer.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string' }, trial: { type: 'boolean', default: false } },
});

try {
  // The time printed at the end is the whole job, prompt to mp4 on disk: planning and writing count too.
  const started = performance.now();
  const { prompt } = validate(quickVideoBody, { prompt: positionals.join(' ') });
  const out = resolve(values.out ?? 'video.mp4');
  const params = planFromPrompt(prompt);
  console.log(`plan: ${JSON.stringify(params)}`);
  const script = writeScript({ params });
  const planned = performance.now();
  console.log(`script:\n${formatScript(script)}\n`);
  const workDir = join(dirname(out), '.render');
  let shown = -1;
  const result = await new EmbeddedRenderer().render({
    script,
    params,
    outDir: workDir,
    ...(values.trial ? { watermark: `${process.env.SERVICE_ADDRESS ?? 'localhost:3000'} (AI)` } : {}),
    onProgress: (f, stage) => {
      const pct = Math.floor(f * 20) * 5;
      if (pct !== shown) {
        shown = pct;
        process.stdout.write(`\rrendering ${String(pct).padStart(3)}% (${stage})   `);
      }
    },
  });
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(result.video, out);
  const cover = `${out.replace(/\.mp4$/i, '')}.cover.jpg`;
  const pack = `${out.replace(/\.mp4$/i, '')}.pack.json`;
  copyFileSync(result.cover, cover);
  writeFileSync(pack, JSON.stringify(script.pack, null, 2));
  const s = (ms: number) => (ms / 1000).toFixed(3);
  const ended = performance.now();
  console.log(`\npictures: ${(result.pictures ?? []).join(', ')}`);
  // From the render's start, in seconds: stages overlap (the soundtrack is made while the video is encoded).
  const stages = (result.stages ?? []).map((t) => `${t.stage} ${t.start.toFixed(3)}-${t.end.toFixed(3)}`);
  console.log(`stages: ${stages.join(', ')}`);
  console.log(
    `video: ${out} (${result.seconds.toFixed(1)} s, made in ${s(ended - started)} s: plan and script ${s(planned - started)} s, render ${s(ended - planned)} s)\ncover: ${cover}\npack:  ${pack}`,
  );
} catch (err) {
  console.error(`\nrender failed: ${(err as Error).message}`);
  process.exit(1);
}
