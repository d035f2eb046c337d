/**
 * The metrics the functions write on the local stack, read back: Powertools Metrics writes CloudWatch embedded metric
 * format lines on stdout (switched on with POWERTOOLS_METRICS_DISABLED=false), one JSON object each, as CloudWatch
 * Logs reads them on AWS. `captureEmf` keeps every line the process writes from the file's first test on.
 */
import { after, before } from 'node:test';
import type { Datapoint } from './alarms.ts';

export interface EmfRecord {
  namespace: string;
  /** The dimension sets of its group, each a list of dimension names. */
  dimensions: string[][];
  /** The record's values: dimensions' and metrics' alike. */
  values: Record<string, unknown>;
  metrics: { name: string; unit: string; value: number }[];
}

export interface EmfCapture {
  /** The records written so far; `from` leaves out the first ones (a mark taken earlier). */
  records(from?: number): EmfRecord[];
  /** How many records there are now: a mark for `records` and `sums`. */
  mark(): number;
  /** Each metric's sum over the records since the mark. */
  sums(from?: number): Record<string, number>;
}

/** The EMF record a line holds (Powertools writes each whole, in one write), after anything else on the line. */
export function parseEmf(line: string): EmfRecord[] {
  const at = line.indexOf('{"_aws"');
  if (at < 0) return [];
  const emf = JSON.parse(line.slice(at)) as Record<string, unknown> & {
    _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  };
  return emf._aws.CloudWatchMetrics.map((group) => ({
    namespace: group.Namespace,
    dimensions: group.Dimensions,
    values: emf,
    metrics: group.Metrics.map((m) => ({
      name: m.Name,
      unit: m.Unit,
      value: [emf[m.Name] as number | number[]].flat().reduce((a, b) => a + b, 0),
    })),
  }));
}

/**
 * A record's datapoints as CloudWatch extracts them: one per value (a metric written twice in a record holds both), per
 * metric and per dimension set of its group, at the record's timestamp.
 */
export function datapointsOf(record: EmfRecord): Datapoint[] {
  const { values } = record;
  const at = (values._aws as { Timestamp: number }).Timestamp;
  return record.dimensions.flatMap((set) => {
    const dimensions = Object.fromEntries(set.map((d) => [d, String(values[d])]));
    return record.metrics.flatMap((m) =>
      [values[m.name] as number | number[]].flat().map((value) => ({ namespace: record.namespace, name: m.name, dimensions, value, at })),
    );
  });
}

/** Keeps every EMF record the process writes from the file's first test on; `quiet` keeps them off the terminal. */
export function captureEmf({ quiet = false } = {}): EmfCapture {
  const found: EmfRecord[] = [];
  const write = process.stdout.write.bind(process.stdout);
  before(() => {
    // A chunk passes on as written, unless quiet and it held a record. A chunk is read on its own: the test runner's own
    // reports share stdout, with no line ends of theirs.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      let records = 0;
      for (const line of String(chunk).split('\n')) {
        const parsed = parseEmf(line);
        found.push(...parsed);
        records += parsed.length;
      }
      return quiet && records > 0 && typeof chunk === 'string' ? true : write(chunk, ...rest);
    }) as typeof process.stdout.write;
  });
  after(() => {
    process.stdout.write = write;
  });
  const records = (from = 0) => found.slice(from);
  return {
    records,
    mark: () => found.length,
    sums: (from = 0) => {
      const sums: Record<string, number> = {};
      for (const r of records(from)) for (const m of r.metrics) sums[m.name] = (sums[m.name] ?? 0) + m.value;
      return sums;
    },
  };
}
