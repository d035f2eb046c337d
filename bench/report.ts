/**
 * The benchmark report: every figure of one `npm run bench` beside its target and, where one exists, the floor
 * measured in the same run (what the same work costs with the service's own layers taken away). Each part runs in
 * its own process and appends its figures to a JSON-lines file; the parent writes reports/bench.{json,md,svg}.
 * The chart is a few lines of SVG written here: one kind of bar chart needs no charting library.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../lib/paths.ts';

export interface Figure {
  section: string;
  name: string;
  value: number;
  unit: string;
  /** The promise: value compared with limit. */
  target?: { op: '<=' | '<' | '>='; limit: number };
  /** The same work without the service's layers, measured in this run. */
  floor?: { value: number; what: string };
  note?: string;
}

export const met = (f: Figure): boolean | undefined =>
  f.target === undefined
    ? undefined
    : f.target.op === '<='
      ? f.value <= f.target.limit
      : f.target.op === '<'
        ? f.value < f.target.limit
        : f.value >= f.target.limit;

/** In a part's process: adds its figures to the run's file (BENCH_FIGURES), when the run asked for one. */
export function emit(figures: Figure[]): void {
  const file = process.env.BENCH_FIGURES;
  if (file) appendFileSync(file, figures.map((f) => `${JSON.stringify(f)}\n`).join(''));
}

export function readFigures(file: string): Figure[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Figure);
}

const fmt = (x: number) => (Math.abs(x) >= 100 || Number.isInteger(x) ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(2));

function markdown(figures: Figure[], meta: Record<string, string>): string {
  const lines = [
    '# Benchmark report',
    '',
    `Written by \`npm run bench\` on ${meta.date} (${meta.machine}; node ${meta.node}).`,
    figures.some((f) => f.section.startsWith('Reliability'))
      ? 'Every figure is measured in this run, except the reliability section, which is the newest money-under-load run (its date is in its title).'
      : 'Every figure is measured in this run. No reliability section: no money-under-load run was found (`npm test` or `npm run test:reliability` writes one).',
    'A floor is measured in the same run: the same work with the service’s layers taken away, or, where its',
    'description says so, a different (smaller) work given for scale.',
    '',
  ];
  for (const section of [...new Set(figures.map((f) => f.section))]) {
    lines.push(`## ${section}`, '', '| figure | measured | floor | target | |', '|---|---|---|---|---|');
    for (const f of figures.filter((x) => x.section === section)) {
      const ok = met(f);
      const floor = f.floor ? `${fmt(f.floor.value)} ${f.unit} (${f.floor.what})` : '';
      const target = f.target ? `${f.target.op} ${fmt(f.target.limit)} ${f.unit}` : '';
      lines.push(
        `| ${f.name}${f.note ? ` (${f.note})` : ''} | ${fmt(f.value)} ${f.unit} | ${floor} | ${target} | ${ok === undefined ? '' : ok ? 'OK' : 'MISSED'} |`,
      );
    }
    lines.push('');
  }
  const targeted = figures.filter((f) => f.target);
  lines.push(`${targeted.filter((f) => met(f)).length} of ${targeted.length} targets met. Chart: [bench.svg](bench.svg).`, '');
  return lines.join('\n');
}

/** Each targeted figure as a share of its target (100% = at the limit); green when met. */
function chart(figures: Figure[]): string {
  const rows = figures.filter((f) => f.target && f.target.limit !== 0);
  const width = 900;
  const label = 430;
  const bar = 18;
  const scale = (width - label - 80) / 200;
  const height = 40 + rows.length * (bar + 8);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const parts = rows.map((f, i) => {
    // For "at least" targets the share is turned around, so that shorter is better for every bar.
    const share = f.target!.op === '>=' ? (f.target!.limit / f.value) * 100 : (f.value / f.target!.limit) * 100;
    const y = 30 + i * (bar + 8);
    const w = Math.min(share, 200) * scale;
    const colour = met(f) ? '#2e7d32' : '#c62828';
    return [
      `<text x="${label - 8}" y="${y + 13}" text-anchor="end">${esc(f.name.slice(0, 64))}</text>`,
      `<rect x="${label}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${colour}"/>`,
      `<text x="${(label + w + 6).toFixed(1)}" y="${y + 13}">${share.toFixed(0)}%</text>`,
    ].join('');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<text x="10" y="18" font-weight="bold">Measured as a share of its target (100% = the limit; for speed targets, limit / measured)</text>`,
    ...parts,
    `<line x1="${label + 100 * scale}" y1="24" x2="${label + 100 * scale}" y2="${height - 4}" stroke="#333" stroke-dasharray="4 3"/>`,
    '</svg>',
    '',
  ].join('\n');
}

/** Writes reports/bench.json, bench.md and bench.svg; returns the markdown. */
export function writeReport(figures: Figure[]): string {
  const meta = {
    date: new Date().toISOString(),
    machine: `${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.version,
  };
  const dir = join(ROOT, 'reports');
  const md = markdown(figures, meta);
  writeFileSync(join(dir, 'bench.json'), `${JSON.stringify({ ...meta, figures: figures.map((f) => ({ ...f, met: met(f) })) }, null, 2)}\n`);
  writeFileSync(join(dir, 'bench.md'), md);
  writeFileSync(join(dir, 'bench.svg'), chart(figures));
  return md;
}
