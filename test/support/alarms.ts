/**
 * CloudWatch's alarm evaluation, offline: the `AWS::CloudWatch::Alarm` resources of a synthesized template evaluated
 * against recorded datapoints, as AWS documents it ("Using metric math", "How alarm state is evaluated when data is
 * missing"). Hand-written: no npm package evaluates CloudWatch alarms or metric math offline (the registry has alarm
 * builders and notifiers only), and LocalStack's evaluator runs only inside LocalStack's own service.
 *
 * What it does, and where it is stricter than AWS where AWS leaves a choice open:
 * - A metric's datapoints are those with its namespace, name and exactly its dimensions, aggregated per period with
 *   its statistic (Sum, Average, Minimum, Maximum, SampleCount, pNN).
 * - CloudWatch evaluates an alarm every minute over periods that end at that minute: every alignment of the periods to
 *   the minute is evaluated, and the alarm fires when any does (a burst split by a boundary breaches twice).
 * - Metric math: + - * / ^, comparisons, AND, OR, IF, DIFF, FILL, ABS. Arithmetic treats a value missing in one
 *   series as 0 where another has one, and drops a division by zero; a comparison of a series with a scalar, and IF's
 *   condition, drop a missing value; IF's true branch gives 0 where its series is missing, its false branch drops it.
 * - M of N: AWS looks back over an evaluation range longer than N periods, of a size it does not publish; here it is
 *   2N periods (a longer range only finds as many breaching datapoints or more). With N real datapoints or more in
 *   the range the most recent N are judged; with fewer, all of them, the rest filled as TreatMissingData says
 *   (breaching counts; notBreaching, ignore and missing do not). The alarm is in ALARM when M or more breach. (An
 *   AWS/DynamoDB alarm's TreatMissingData is read as set, as the user guide says; the API reference's "always ignore"
 *   would only keep an ALARM longer.)
 */

/** One recorded value of a metric (an EMF line's value, a local stand-in's event), at `at` (epoch ms). */
export interface Datapoint {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  value: number;
  at: number;
}

export interface MetricStat {
  namespace: string;
  name: string;
  /** Dimension values as the template holds them: strings, or CloudFormation intrinsics (Ref, Fn::GetAtt, ...). */
  dimensions: { Name: string; Value: unknown }[];
  period: number;
  stat: string;
}

export interface AlarmQuery {
  id: string;
  expression?: string;
  metric?: MetricStat;
  returnData: boolean;
}

export interface AlarmDefinition {
  /** The alarm's logical id in the template. */
  id: string;
  description: string;
  comparison: string;
  threshold: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  treatMissingData: 'breaching' | 'notBreaching' | 'ignore' | 'missing';
  queries: AlarmQuery[];
}

/** Every `AWS::CloudWatch::Alarm` of a template, its single metric or its metric math read into one shape. */
export function alarmsOf(template: { Resources: Record<string, { Type: string; Properties?: any }> }): AlarmDefinition[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
    .map(([id, { Properties: p }]) => {
      const queries: AlarmQuery[] = p.Metrics
        ? p.Metrics.map((m: any) => ({
            id: m.Id,
            returnData: m.ReturnData !== false,
            ...(m.Expression ? { expression: m.Expression } : {}),
            ...(m.MetricStat
              ? {
                  metric: {
                    namespace: m.MetricStat.Metric.Namespace,
                    name: m.MetricStat.Metric.MetricName,
                    dimensions: m.MetricStat.Metric.Dimensions ?? [],
                    period: m.MetricStat.Period,
                    stat: m.MetricStat.Stat,
                  },
                }
              : {}),
          }))
        : [
            {
              id: 'm',
              returnData: true,
              metric: {
                namespace: p.Namespace,
                name: p.MetricName,
                dimensions: p.Dimensions ?? [],
                period: p.Period,
                stat: p.Statistic ?? p.ExtendedStatistic,
              },
            },
          ];
      return {
        id,
        description: p.AlarmDescription ?? '',
        comparison: p.ComparisonOperator,
        threshold: p.Threshold,
        evaluationPeriods: p.EvaluationPeriods,
        datapointsToAlarm: p.DatapointsToAlarm ?? p.EvaluationPeriods,
        treatMissingData: p.TreatMissingData ?? 'missing',
        queries,
      };
    });
}

/** The metrics an alarm reads. */
export const metricsOf = (alarm: AlarmDefinition): MetricStat[] => alarm.queries.flatMap((q) => (q.metric ? [q.metric] : []));

/** A series over the evaluation's periods: a value per period, or undefined where it has none. */
type Series = (number | undefined)[];
type Value = number | Series;

/** One statistic of a period's values. */
function statistic(stat: string, values: number[]): number {
  if (stat === 'Sum') return values.reduce((a, b) => a + b, 0);
  if (stat === 'Maximum') return Math.max(...values);
  if (stat === 'Minimum') return Math.min(...values);
  if (stat === 'Average') return values.reduce((a, b) => a + b, 0) / values.length;
  if (stat === 'SampleCount') return values.length;
  const p = /^p(\d+(\.\d+)?)$/.exec(stat);
  if (p) {
    // Nearest rank.
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((Number(p[1]) / 100) * sorted.length) - 1)]!;
  }
  throw new Error(`statistic ${stat} is not evaluated here`);
}

// ---- Metric math: a small parser and the series operations AWS documents. ----

type Node =
  | { kind: 'number'; value: number }
  | { kind: 'id'; name: string }
  | { kind: 'word'; name: string }
  | { kind: 'unary'; op: '-'; arg: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'call'; name: string; args: Node[] };

const TOKEN = /\s*(\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|==|!=|<=|>=|&&|\|\||[-+*/^(),<>])/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`cannot read the expression "${text}" at ${TOKEN.lastIndex}`);
    tokens.push(m[1]!);
  }
  return tokens;
}

/** Operators from the loosest to the tightest binding. */
const LEVELS = [['OR', '||'], ['AND', '&&'], ['==', '!=', '<=', '>=', '<', '>'], ['+', '-'], ['*', '/'], ['^']];

export function parseExpression(text: string): Node {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const take = (expected?: string) => {
    const t = tokens[i++];
    if (t === undefined || (expected !== undefined && t !== expected)) throw new Error(`expected ${expected ?? 'more'} in "${text}", got ${t}`);
    return t;
  };
  const level = (n: number): Node => {
    if (n === LEVELS.length) return unary();
    let left = level(n + 1);
    while (peek() !== undefined && LEVELS[n]!.includes(peek()!)) {
      const op = take();
      left = { kind: 'binary', op: op === '&&' ? 'AND' : op === '||' ? 'OR' : op, left, right: level(n + 1) };
    }
    return left;
  };
  const unary = (): Node => {
    if (peek() === '-') {
      take();
      return { kind: 'unary', op: '-', arg: unary() };
    }
    return primary();
  };
  const primary = (): Node => {
    const t = take();
    if (t === '(') {
      const inner = level(0);
      take(')');
      return inner;
    }
    if (/^\d/.test(t)) return { kind: 'number', value: Number(t) };
    if (peek() === '(') {
      take('(');
      const args: Node[] = [];
      if (peek() !== ')') {
        args.push(level(0));
        while (peek() === ',') {
          take(',');
          args.push(level(0));
        }
      }
      take(')');
      return { kind: 'call', name: t, args };
    }
    return /^[a-z]/.test(t) ? { kind: 'id', name: t } : { kind: 'word', name: t };
  };
  const node = level(0);
  if (i !== tokens.length) throw new Error(`unexpected ${tokens[i]} in "${text}"`);
  return node;
}

const COMPARISONS: Record<string, (a: number, b: number) => boolean> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<=': (a, b) => a <= b,
  '>=': (a, b) => a >= b,
  '<': (a, b) => a < b,
  '>': (a, b) => a > b,
  AND: (a, b) => a !== 0 && b !== 0,
  OR: (a, b) => a !== 0 || b !== 0,
};
const ARITHMETIC: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '^': (a, b) => a ** b,
};

/** A binary operation as metric math does it on scalars and series. */
function binary(op: string, a: Value, b: Value): Value {
  const compare = COMPARISONS[op];
  const f = compare ? (x: number, y: number) => (compare(x, y) ? 1 : 0) : ARITHMETIC[op];
  if (!f) throw new Error(`operator ${op} is not evaluated here`);
  const finite = (v: number) => (Number.isFinite(v) ? v : undefined); // a division by zero drops the datapoint
  if (typeof a === 'number' && typeof b === 'number') return f(a, b);
  if (typeof a === 'number') return (b as Series).map((y) => (y === undefined ? undefined : finite(f(a, y))));
  if (typeof b === 'number') return a.map((x) => (x === undefined ? undefined : finite(f(x, b))));
  // Two series: a value missing in one is 0 where the other has one.
  return a.map((x, i) => (x === undefined && b[i] === undefined ? undefined : finite(f(x ?? 0, b[i] ?? 0))));
}

function evaluate(node: Node, ids: (id: string) => Series, length: number): Value {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'id':
      return ids(node.name);
    case 'word':
      throw new Error(`${node.name} is not evaluated here`);
    case 'unary':
      return binary('-', 0, evaluate(node.arg, ids, length));
    case 'binary':
      return binary(node.op, evaluate(node.left, ids, length), evaluate(node.right, ids, length));
    case 'call': {
      const arg = (n: number) => evaluate(node.args[n]!, ids, length);
      const series = (v: Value): Series => (typeof v === 'number' ? Array.from({ length }, () => v) : v);
      if (node.name === 'IF') {
        const [cond, yes] = [arg(0), arg(1)];
        const no = node.args.length > 2 ? arg(2) : undefined;
        if (typeof cond === 'number') return cond !== 0 ? series(yes) : no === undefined ? Array.from({ length }, () => undefined) : series(no);
        return cond.map((c, i) => {
          if (c === undefined) return undefined;
          if (c !== 0) return typeof yes === 'number' ? yes : (yes[i] ?? 0);
          return no === undefined ? undefined : typeof no === 'number' ? no : no[i];
        });
      }
      if (node.name === 'DIFF') {
        let previous: number | undefined;
        return series(arg(0)).map((v) => {
          if (v === undefined) return undefined;
          const d = previous === undefined ? undefined : v - previous;
          previous = v;
          return d;
        });
      }
      if (node.name === 'FILL') {
        const values = series(arg(0));
        const by = node.args[1]!;
        if (by.kind === 'word' && by.name === 'REPEAT') {
          let last: number | undefined;
          return values.map((v) => {
            if (v !== undefined) last = v;
            return last;
          });
        }
        const filler = series(evaluate(by, ids, length));
        return values.map((v, i) => v ?? filler[i]);
      }
      if (node.name === 'ABS') {
        const v = arg(0);
        return typeof v === 'number' ? Math.abs(v) : v.map((x) => (x === undefined ? undefined : Math.abs(x)));
      }
      throw new Error(`function ${node.name} is not evaluated here`);
    }
  }
}

// ---- Alarm evaluation. ----

const BREACHES: Record<string, (v: number, t: number) => boolean> = {
  GreaterThanOrEqualToThreshold: (v, t) => v >= t,
  GreaterThanThreshold: (v, t) => v > t,
  LessThanThreshold: (v, t) => v < t,
  LessThanOrEqualToThreshold: (v, t) => v <= t,
};

/** A metric's recorded values, with their times (epoch ms). */
export interface MetricSource {
  points(metric: MetricStat): readonly { at: number; value: number }[];
}

/** An index of datapoints by namespace, name and exact dimensions; `resolve` maps a template dimension value to a recorded one. */
export function indexPoints(points: readonly Datapoint[], resolve: (name: string, value: unknown) => string): MetricSource {
  const key = (namespace: string, name: string, dims: [string, string][]) =>
    JSON.stringify([namespace, name, [...dims].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  const byKey = new Map<string, { at: number; value: number }[]>();
  for (const p of points) {
    const k = key(p.namespace, p.name, Object.entries(p.dimensions));
    const list = byKey.get(k) ?? [];
    byKey.set(k, list);
    list.push({ at: p.at, value: p.value });
  }
  return {
    points: (m) =>
      byKey.get(
        key(
          m.namespace,
          m.name,
          m.dimensions.map((d) => [d.Name, resolve(d.Name, d.Value)]),
        ),
      ) ?? [],
  };
}

export interface Evaluation {
  /** The evaluation times (epoch ms, each the end of the latest period judged) at which the alarm was in ALARM. */
  alarmAt: number[];
  /** The breaching values seen, with the end of their period, for the report. */
  breaching: { at: number; value: number }[];
}

const MINUTE = 60_000;

/**
 * Evaluates `alarm` every minute from `from` to `to` (epoch ms) against `source`, with every alignment of its
 * periods to the minute. `rangeFactor` sets the evaluation range (rangeFactor * N periods).
 */
export function evaluateAlarm(alarm: AlarmDefinition, source: MetricSource, from: number, to: number, rangeFactor = 2): Evaluation {
  const metrics = metricsOf(alarm);
  const periods = new Set(metrics.map((m) => m.period));
  if (periods.size !== 1) throw new Error(`${alarm.id}: metrics of different periods are not evaluated here`);
  const period = [...periods][0]! * 1000;
  const breaches = BREACHES[alarm.comparison];
  if (!breaches) throw new Error(`${alarm.id}: comparison ${alarm.comparison} is not evaluated here`);
  const n = alarm.evaluationPeriods;
  const range = rangeFactor * n;
  const returned = alarm.queries.filter((q) => q.returnData);
  if (returned.length !== 1) throw new Error(`${alarm.id}: ${returned.length} queries return data`);
  const alarmAt = new Set<number>();
  const breaching = new Map<number, number>();
  for (let offset = 0; offset < period; offset += Math.min(MINUTE, period)) {
    // Periods [start + k*period, start + (k+1)*period), from a range before `from` to the last one ending after `to`.
    const start = Math.floor((from - offset) / period) * period + offset - range * period;
    const length = Math.ceil((to - start) / period) + 1;
    const cache = new Map<string, Series>();
    const ids = (id: string): Series => {
      const hit = cache.get(id);
      if (hit) return hit;
      const q = alarm.queries.find((x) => x.id === id);
      if (!q) throw new Error(`${alarm.id}: no query ${id}`);
      let result: Series;
      if (q.metric) {
        const buckets: number[][] = Array.from({ length }, () => []);
        for (const p of source.points(q.metric)) {
          const k = Math.floor((p.at - start) / period);
          if (k >= 0 && k < length) buckets[k]!.push(p.value);
        }
        result = buckets.map((values) => (values.length ? statistic(q.metric!.stat, values) : undefined));
      } else {
        const v = evaluate(parseExpression(q.expression!), ids, length);
        result = typeof v === 'number' ? Array.from({ length }, () => v) : v;
      }
      cache.set(id, result);
      return result;
    };
    const values = ids(returned[0]!.id);
    for (let i = 0; i < length; i++) {
      const end = start + (i + 1) * period;
      if (end < from || end - period > to) continue;
      const real: number[] = [];
      for (let j = i; j > i - range && j >= 0 && real.length < n; j--) if (values[j] !== undefined) real.push(values[j]!);
      let count = real.filter((v) => breaches(v, alarm.threshold)).length;
      if (real.length < n && alarm.treatMissingData === 'breaching') count += n - real.length;
      if (count >= alarm.datapointsToAlarm) alarmAt.add(end);
      if (values[i] !== undefined && breaches(values[i]!, alarm.threshold)) breaching.set(end, values[i]!);
    }
  }
  return {
    alarmAt: [...alarmAt].sort((a, b) => a - b),
    breaching: [...breaching].sort(([a], [b]) => a - b).map(([at, value]) => ({ at, value })),
  };
}
