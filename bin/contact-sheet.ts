/**
 * npm run contact-sheet -- "<prompt>" ["<prompt>" ...] [--out FILE] [--every SECONDS]: renders each prompt with the
 * embedded generator (as npm run render does) and writes one PNG with a row per prompt and a frame every few seconds
 * (3 by default), to look at many scenes at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { validate } from '../functions/app/validate.ts';
import { quickVideoBody } from '../functions/contract/orders.ts';
import { runFfmpeg } from '../functions/generator/ffmpeg.ts';
import { planFromPrompt } from '../functions/generator/planner.ts';
import { EmbeddedRenderer } from '../functions/generator/render.ts';
import { writeScript } from '../functions/generator/writer.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string', default: 'contact-sheet.png' }, every: { type: 'string', default: '3' } },
});
const every = Number(values.every);
if (!positionals.length || !(every > 0)) {
  console.error('usage: npm run contact-sheet -- "<prompt>" ["<prompt>" ...] [--out FILE] [--every SECONDS]');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'contact-sheet-'));
try {
  const rows: string[] = [];
  let columns = 0;
  for (const [i, raw] of positionals.entries()) {
    const { prompt } = validate(quickVideoBody, { prompt: raw });
    const params = planFromPrompt(prompt);
    const script = writeScript({ params });
    const result = await new EmbeddedRenderer().render({ script, params, outDir: join(dir, `video-${i}`) });
    console.log(`${prompt}\n  ${result.seconds.toFixed(1)} s, tone ${params.tone}; pictures: ${(result.pictures ?? []).join(', ')}`);
    columns = Math.max(columns, Math.ceil(result.seconds / every));
    rows.push(result.video);
  }
  // A frame every `every` seconds, starting half-way into the first interval, each 216x384, one row per video.
  const inputs = rows.flatMap((video) => ['-i', video]);
  const tiles = rows.map((_, i) => `[${i}:v]fps=1/${every}:start_time=${every / 2},scale=216:384,tile=${columns}x1:padding=4:color=white[r${i}]`);
  const stack = rows.length > 1 ? `${rows.map((_, i) => `[r${i}]`).join('')}vstack=inputs=${rows.length}[sheet]` : '[r0]null[sheet]';
  const out = resolve(values.out);
  await runFfmpeg(['-y', ...inputs, '-filter_complex', [...tiles, stack].join(';'), '-map', '[sheet]', '-frames:v', '1', out]);
  console.log(`contact sheet: ${out} (${rows.length} videos, a frame every ${every} s)`);
} catch (err) {
  console.error(`contact sheet failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
