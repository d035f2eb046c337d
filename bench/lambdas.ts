/**
 * The Lambda bundles as `cdk synth` builds them: for each function, the size of its bundle and the time to import it
 * in a fresh Node process (median of 5), the AWS SDK coming from node_modules as it comes from the runtime on AWS.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/paths.ts';

export interface BundleFigures {
  name: string;
  kind: 'http' | 'step';
  bytes: number;
  importMs: number;
}

const RUNS = 5;

function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const times = Array.from({ length: RUNS }, () => {
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    if (res.status !== 0) throw new Error(`importing ${file} failed: ${res.stderr}`);
    return Number(res.stdout.trim());
  }).sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!;
}

/** The floor of an import: the AWS SDK packages every function uses (on AWS they come with the runtime). */
export function sdkImportMs(): number {
  const file = join(ROOT, 'node_modules', '.bench-sdk-floor.mjs');
  writeFileSync(file, "import '@aws-sdk/client-dynamodb';\nimport '@aws-sdk/lib-dynamodb';\n");
  try {
    return importMs(file);
  } finally {
    rmSync(file, { force: true });
  }
}

export function benchLambdas(): BundleFigures[] {
  const synth = spawnSync('npx', ['cdk', 'synth', '-q'], { cwd: ROOT, encoding: 'utf8' });
  if (synth.status !== 0) throw new Error(`cdk synth failed: ${synth.stderr.slice(-2000)}`);
  const out = join(ROOT, 'cdk.out');
  const template = JSON.parse(readFileSync(join(out, 'VideoService-dev.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  const figures: BundleFigures[] = [];
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const m = /\/(http|step)-([\w-]+)\/Resource$/.exec(r.Metadata!['aws:cdk:path']!);
    if (!m) continue;
    // The render step's bundle sits in its image's build context, under app/ (lib/render-image.ts).
    const file = join(out, r.Metadata!['aws:asset:path']!, ...(r.Metadata!['aws:asset:dockerfile-path'] ? ['app'] : []), 'index.mjs');
    figures.push({ name: m[2]!, kind: m[1] as 'http' | 'step', bytes: statSync(file).size, importMs: importMs(file) });
  }
  return figures;
}
