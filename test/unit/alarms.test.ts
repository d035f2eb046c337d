/**
 * The offline alarm evaluator (test/support/alarms.ts) on hand-made alarms: M of N, missing data, the alignment of
 * periods, and the metric math the templates use (arithmetic with missing values, IF, DIFF, FILL).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AlarmDefinition, alarmsOf, type Datapoint, evaluateAlarm, indexPoints, parseExpression } from '../support/alarms.ts';

const MIN = 60_000;
/** A day's start, on a minute (and an hour). */
const T0 = Date.UTC(2026, 2, 2, 9);

const point = (name: string, minute: number, value = 1): Datapoint => ({
  namespace: 'Test',
  name,
  dimensions: { d: 'x' },
  value,
  at: T0 + minute * MIN + 1000,
});
const metric = (name: string, period = 300, stat = 'Sum') => ({ namespace: 'Test', name, dimensions: [{ Name: 'd', Value: 'x' }], period, stat });

function alarm(over: Partial<AlarmDefinition> & Pick<AlarmDefinition, 'queries'>): AlarmDefinition {
  return {
    id: 'A',
    description: '',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: 'notBreaching',
    ...over,
  };
}
const single = (name: string, over: Partial<AlarmDefinition> = {}, period = 300, stat = 'Sum') =>
  alarm({ queries: [{ id: 'm', returnData: true, metric: metric(name, period, stat) }], ...over });
const math = (expression: string, names: Record<string, string>, over: Partial<AlarmDefinition> = {}, period = 300) =>
  alarm({
    queries: [
      { id: 'e', returnData: true, expression },
      ...Object.entries(names).map(([id, name]) => ({ id, returnData: false, metric: metric(name, period) })),
    ],
    ...over,
  });

const fires = (a: AlarmDefinition, points: Datapoint[], minutes = 120) =>
  evaluateAlarm(
    a,
    indexPoints(points, (_n, v) => String(v)),
    T0,
    T0 + minutes * MIN,
  ).alarmAt.length > 0;

describe('the offline alarm evaluator', () => {
  it('fires a 1 of 1 alarm on one breaching period, and not below its threshold', () => {
    assert.equal(fires(single('E'), [point('E', 3)]), true);
    assert.equal(fires(single('E', { threshold: 2 }), [point('E', 3)]), false);
    assert.equal(fires(single('E', { threshold: 2 }), [point('E', 3), point('E', 4)]), true);
    assert.equal(fires(single('E', { comparison: 'GreaterThanThreshold' }), [point('E', 3)]), false);
  });

  it('fires M of N only with M breaching periods in the range', () => {
    const twoOfThree = single('E', { evaluationPeriods: 3, datapointsToAlarm: 2 });
    // Two events in the same minute: one period, whatever the alignment.
    assert.equal(fires(twoOfThree, [point('E', 7), point('E', 7)]), false);
    // Five minutes apart: two periods.
    assert.equal(fires(twoOfThree, [point('E', 7), point('E', 12)]), true);
    // Either side of a minute's boundary: CloudWatch evaluates every minute, so one alignment splits them.
    assert.equal(fires(twoOfThree, [point('E', 7), point('E', 8)]), true);
    // An hour apart: never in one range.
    assert.equal(fires(twoOfThree, [point('E', 7), point('E', 67)]), false);
    // Three of five with non-breaching real datapoints between: the most recent five real ones are judged.
    const threeOfFive = single('E', { evaluationPeriods: 5, datapointsToAlarm: 3, threshold: 5 });
    const busy = (m: number, v: number) => point('E', m, v);
    assert.equal(fires(threeOfFive, [busy(0, 9), busy(5, 1), busy(10, 9), busy(15, 1), busy(20, 9)]), true);
    assert.equal(fires(threeOfFive, [busy(0, 9), busy(5, 1), busy(10, 1), busy(15, 1), busy(20, 9), busy(25, 1), busy(30, 1)]), false);
  });

  it('treats missing data as the alarm says', () => {
    assert.equal(fires(single('E'), []), false);
    assert.equal(fires(single('E', { treatMissingData: 'breaching' }), []), true);
    assert.equal(fires(single('E', { treatMissingData: 'ignore' }), []), false);
    // Breaching fills the periods a sparse metric leaves empty: one real breach and two missing make 3 of 3.
    const threeOfThree = { evaluationPeriods: 3, datapointsToAlarm: 3 };
    assert.equal(fires(single('E', { ...threeOfThree, treatMissingData: 'breaching' }), [point('E', 0, 5)]), true);
    assert.equal(fires(single('E', { ...threeOfThree, treatMissingData: 'notBreaching' }), [point('E', 0, 5)]), false);
  });

  it('aggregates with the statistic: Maximum, Average and a percentile', () => {
    const values = [1, 2, 3, 4, 100].map((v) => point('D', 2, v));
    assert.equal(fires(single('D', { threshold: 100 }, 300, 'Maximum'), values), true);
    assert.equal(fires(single('D', { threshold: 23 }, 300, 'Average'), values), false);
    assert.equal(fires(single('D', { threshold: 22 }, 300, 'Average'), values), true);
    assert.equal(fires(single('D', { threshold: 5 }, 300, 'p80'), values), false);
    assert.equal(fires(single('D', { threshold: 4 }, 300, 'p80'), values), true);
  });

  it('adds series with a missing value as 0, and drops a division by zero', () => {
    const sum = math('failed + timedOut + aborted', { failed: 'F', timedOut: 'T', aborted: 'A' });
    assert.equal(fires(sum, [point('A', 4)]), true);
    assert.equal(fires(sum, []), false);
    assert.equal(fires(math('a / b', { a: 'A', b: 'B' }), [point('A', 4)]), false);
    assert.equal(fires(math('a - b', { a: 'A', b: 'B' }), [point('A', 4, 3), point('B', 4, 2)]), true);
    assert.equal(fires(math('a - b', { a: 'A', b: 'B' }), [point('A', 4, 3), point('B', 4, 3)]), false);
  });

  it('evaluates IF as AWS documents it: a rate once there are calls enough', () => {
    const rate = math('IF(calls >= 10, 100 * errors / calls, 0)', { calls: 'C', errors: 'E' }, { threshold: 5 });
    const calls = (n: number, minute = 1) => Array.from({ length: n }, () => point('C', minute));
    const errors = (n: number, minute = 1) => Array.from({ length: n }, () => point('E', minute));
    // 5 of 9 calls failed: too few calls for a rate.
    assert.equal(fires(rate, [...calls(9), ...errors(5)]), false);
    assert.equal(fires(rate, [...calls(10), ...errors(1)]), true);
    assert.equal(fires(rate, [...calls(40), ...errors(1)]), false);
    // No errors datapoint at all: the true branch's missing value is 0.
    assert.equal(fires(rate, calls(40)), false);
    // Errors with no calls: the condition is missing, the datapoint dropped.
    assert.equal(fires(rate, errors(3)), false);
    // With outcomes taken away, a failed generation is not an error.
    const unexpected = math('IF(calls >= 10, 100 * (errors - outcomes) / calls, 0)', { calls: 'C', errors: 'E', outcomes: 'O' }, { threshold: 5 });
    assert.equal(fires(unexpected, [...calls(10), ...errors(2), point('O', 1), point('O', 1)]), false);
    assert.equal(fires(unexpected, [...calls(10), ...errors(2), point('O', 1)]), true);
  });

  it('evaluates DIFF against the preceding value, for a queue that grows N minutes in a row', () => {
    const growing = math('IF(DIFF(depth) > 0, 1, 0)', { depth: 'Q' }, { evaluationPeriods: 3, datapointsToAlarm: 3 }, 60);
    const depths = (values: number[]) => values.map((v, m) => ({ ...point('Q', m, v), at: T0 + m * MIN + 1000 }));
    assert.equal(fires(growing, depths([1, 2, 3, 4])), true);
    assert.equal(fires(growing, depths([1, 2, 2, 3, 4])), false);
    assert.equal(fires(growing, depths([4, 3, 2, 1])), false);
  });

  it('fills a sparse series with FILL, and parses precedence and parentheses', () => {
    const filled = math('FILL(m, 0) + 1', { m: 'M' }, { threshold: 1, evaluationPeriods: 1 });
    // Every period has a value once filled: 0 + 1 breaches 1 with no datapoint at all.
    assert.equal(fires(filled, []), true);
    assert.equal(fires(math('FILL(m, REPEAT) >= 5', { m: 'M' }, { evaluationPeriods: 3, datapointsToAlarm: 3 }), [point('M', 0, 5)]), true);
    assert.deepEqual(parseExpression('1 + 2 * 3'), {
      kind: 'binary',
      op: '+',
      left: { kind: 'number', value: 1 },
      right: { kind: 'binary', op: '*', left: { kind: 'number', value: 2 }, right: { kind: 'number', value: 3 } },
    });
    assert.equal(fires(math('(a + b) * 2 >= 6', { a: 'A', b: 'B' }), [point('A', 1), point('B', 1, 2)]), true);
    assert.equal(fires(math('a + b * 2 >= 6', { a: 'A', b: 'B' }), [point('A', 1), point('B', 1, 2)]), false);
    assert.throws(() => parseExpression('SEARCH(x)') && fires(math('SEARCH(m)', { m: 'M' }), [point('M', 1)]), /SEARCH is not evaluated/);
  });

  it('reads an alarm of a template, single-metric and metric math', () => {
    const [one, two] = alarmsOf({
      Resources: {
        One: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            Threshold: 10,
            EvaluationPeriods: 1,
            Namespace: 'Test',
            MetricName: 'D',
            Dimensions: [{ Name: 'd', Value: 'x' }],
            Period: 3600,
            Statistic: 'Sum',
            TreatMissingData: 'notBreaching',
          },
        },
        Two: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            Threshold: 1,
            EvaluationPeriods: 3,
            DatapointsToAlarm: 2,
            Metrics: [
              { Id: 'e', Expression: 'a + b', ReturnData: true },
              {
                Id: 'a',
                ReturnData: false,
                MetricStat: { Metric: { Namespace: 'Test', MetricName: 'A', Dimensions: [{ Name: 'd', Value: 'x' }] }, Period: 300, Stat: 'Sum' },
              },
              {
                Id: 'b',
                ReturnData: false,
                MetricStat: { Metric: { Namespace: 'Test', MetricName: 'B', Dimensions: [{ Name: 'd', Value: 'x' }] }, Period: 300, Stat: 'Sum' },
              },
            ],
          },
        },
        Other: { Type: 'AWS::SNS::Topic' },
      },
    });
    // Ten in an hour, spread over it, fire; nine do not.
    for (const [count, fired] of [
      [10, true],
      [9, false],
    ] as const)
      assert.equal(
        fires(
          one!,
          Array.from({ length: count }, (_, i) => point('D', i * 5)),
          180,
        ),
        fired,
        `${count} in an hour`,
      );
    assert.equal(two!.treatMissingData, 'missing');
    assert.equal(fires(two!, [point('A', 1), point('B', 6)]), true);
    assert.equal(fires(two!, [point('A', 1), point('B', 1)]), false);
  });
});
