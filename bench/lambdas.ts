/**
 * The Lambda bundles as `cdk synth` builds them, the AWS SDK inside (lib/functions.ts), against the same entry built
 * with the SDK left out as it was before (`@aws-sdk/*` external, found in node_modules as the Lambda runtime's would
 * be): for each function the size of both bundles and the time to import each in a fresh Node process (median of 5,
 * the two interleaved with the floor, an empty module's import, so that the machine's load hits all three alike).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { BUNDLING, entryOf } from '../lib/functions.ts';
import { ROOT } from '../lib/paths.ts';

export interface BundleFigures {
  name: string;
  kind: 'http' | 'step';
  /** The bundle `cdk synth` built: the SDK inside. */
  bytes: number;
  importMs: number;
  /** The same entry with the SDK left out, imported from node_modules. */
  sdkOutsideBytes: number;
  sdkOutsideImportMs: number;
}

const RUNS = 5;

/** One import of `file` in a fresh process: the milliseconds from before `import()` to its end (Node's start excluded). */
function importOnce(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  if (res.status !== 0) throw new Error(`importing ${file} failed: ${res.stderr}`);
  return Number(res.stdout.trim());
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The entry built as lib/functions.ts builds it, but with the AWS SDK left out (as before issue 26). */
function buildSdkOutside(entry: string, outfile: string, render: boolean): void {
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: BUNDLING.mainFields,
    external: ['@aws-sdk/*', ...(render ? ['espeak-ng'] : [])],
    logLevel: 'error',
  });
}

export function benchLambdas(): { figures: BundleFigures[]; floorMs: number } {
  const synth = spawnSync('npx', ['cdk', 'synth', '-q'], { cwd: ROOT, encoding: 'utf8' });
  if (synth.status !== 0) throw new Error(`cdk synth failed: ${synth.stderr.slice(-2000)}`);
  const out = join(ROOT, 'cdk.out');
  const template = JSON.parse(readFileSync(join(out, 'VideoService-dev.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  // Inside the project, so that the builds without the SDK find it in node_modules.
  const scratch = join(out, 'bench-lambdas');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const empty = join(scratch, 'empty.mjs');
  writeFileSync(empty, '');
  const floors: number[] = [];
  const figures: BundleFigures[] = [];
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const m = /\/(http|step)-([\w-]+)\/Resource$/.exec(r.Metadata!['aws:cdk:path']!);
    if (!m) continue;
    const [kind, name] = [m[1] as 'http' | 'step', m[2]!];
    // The render step's bundle sits in its image's build context, under app/ (lib/render-image.ts).
    const render = Boolean(r.Metadata!['aws:asset:dockerfile-path']);
    const file = join(out, r.Metadata!['aws:asset:path']!, ...(render ? ['app'] : []), 'index.mjs');
    const outside = join(scratch, `${kind}-${name}`, 'index.mjs');
    buildSdkOutside(entryOf(kind, name), outside, render);
    const inside: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floors.push(importOnce(empty));
      inside.push(importOnce(file));
      without.push(importOnce(outside));
    }
    figures.push({
      name,
      kind,
      bytes: statSync(file).size,
      importMs: median(inside),
      sdkOutsideBytes: statSync(outside).size,
      sdkOutsideImportMs: median(without),
    });
  }
  rmSync(scratch, { recursive: true, force: true });
  return { figures, floorMs: median(floors) };
}
