/**
 * What the platform team watches: alarms (to an SNS topic, and by e-mail to the stage's alarmEmails) on the API's 5xx
 * rate, failed and throttled executions, executions stopped from outside, each function's error rate (the workflow's
 * business outcomes taken out), throttles and runs near its timeout, dropped webhook deliveries, charged orders whose
 * workflow did not start, and one dashboard with the business metrics (orders created, done, failed, refunded;
 * deliveries dropped) beside the AWS ones. Each alarm is a fault, never business as usual: a customer's cancel and a
 * deadline's stop the execution (Step Functions counts them aborted) and page nobody. An alarm whose metric can blip
 * once without an outage (a rate, a throttle) needs M of N breaching periods; one that counts events that should
 * never happen (a failed execution, a start that failed after the charge) pages on the first. The service's own
 * metrics carry the stage beside the service, so that stages sharing an account and region never mix. Every alarm is
 * on the dashboard too, in alarm-status widgets by kind (the service's, then each function's errors, throttles and
 * runs near the timeout), each split so that no widget holds more than CloudWatch allows.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  AlarmStatusWidgetSortBy,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { FunctionMetricName, GaugeName, MetricName } from '../functions/core/ports.ts';
import { STEPS } from '../functions/steps/table.ts';

export const METRICS_NAMESPACE = 'VideoService';
const FIVE_MINUTES = Duration.minutes(5);
const ONE_OF_ONE = { datapoints: 1, periods: 1 };
const TWO_OF_THREE = { datapoints: 2, periods: 3 };
const THREE_OF_FIVE = { datapoints: 3, periods: 5 };
/** Minutes in a row of a growing API queue that page. */
export const QUEUE_GROWTH_MINUTES = 15;
/** A function's error rate that pages (percent of calls). */
const ERROR_RATE_PERCENT = 5;
/** The share of renders failing as business outcomes (refunded) that pages (percent of calls). */
const RENDERS_FAILING_PERCENT = 50;
/** The share of a function's timeout at which a call counts as near it. */
const NEAR_TIMEOUT = 0.8;
/** The most alarms one alarm-status widget may hold (CloudWatch's Dashboard Body Structure: `alarms`, 1-100 ARNs). */
export const MAX_ALARMS_PER_WIDGET = 100;
/** The dashboard's groups of alarms, each shown in widgets of its own. */
const SERVICE = 'Service alarms';
const FUNCTION_ERRORS = 'Function error rates';
const FUNCTION_THROTTLES = 'Function throttles';
const FUNCTION_NEAR_TIMEOUT = 'Function runs near their timeout';

/**
 * Alarm-status widgets, full width, for each group in order: a group of more than `perWidget` alarms is split in
 * even parts, titled "(1 of 2)" and so on. Alarms in ALARM state sort first, so a long widget shows what fires on top.
 */
export function alarmWidgets(groups: ReadonlyMap<string, readonly IAlarm[]>, perWidget = MAX_ALARMS_PER_WIDGET): AlarmStatusWidget[] {
  return [...groups].flatMap(([title, alarms]) => {
    const parts = Math.ceil(alarms.length / perWidget);
    const size = Math.ceil(alarms.length / parts);
    return Array.from(
      { length: parts },
      (_, i) =>
        new AlarmStatusWidget({
          title: parts > 1 ? `${title} (${i + 1} of ${parts})` : title,
          alarms: alarms.slice(i * size, (i + 1) * size),
          width: 24,
          height: 6,
          sortBy: AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
        }),
    );
  });
}

export interface ObservabilityProps {
  stage: string;
  api: HttpApi;
  machines: { order: StateMachine; delivery: StateMachine };
  functions: Map<string, LambdaFunction>;
  table: TableV2;
  alarmEmails: readonly string[];
  /** The oldest API order's wait for a render slot that raises an alarm. */
  queueWaitAlarmSeconds: number;
}

export class Observability extends Construct {
  readonly topic: Topic;
  /** The alarms by dashboard group. */
  readonly alarms = new Map<string, Alarm[]>([
    [SERVICE, []],
    [FUNCTION_ERRORS, []],
    [FUNCTION_THROTTLES, []],
    [FUNCTION_NEAR_TIMEOUT, []],
  ]);

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Alarms', { displayName: `Video service ${props.stage} alarms`, enforceSSL: true });
    for (const email of props.alarmEmails) this.topic.addSubscription(new EmailSubscription(email));
    // The dimensions every metric of the service carries (functions/adapters/metrics.ts: the stage from STAGE).
    const dimensionsMap = { service: 'video-service', stage: props.stage };
    /** One of the service's own metrics, as the functions write it. */
    const ours = (name: MetricName | FunctionMetricName | GaugeName, statistic: string, period: Duration, more: { function?: string; label?: string } = {}) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: more.function ? { ...dimensionsMap, function: more.function } : dimensionsMap,
        statistic,
        period,
        ...(more.label ? { label: more.label } : {}),
      });
    const business = (name: MetricName, period = FIVE_MINUTES) => ours(name, 'Sum', period);
    // One function's count (functions/adapters/metrics.ts countOfFunction), by its name as the stack names it.
    const ofFunction = (name: FunctionMetricName, fn: string) => ours(name, 'Sum', FIVE_MINUTES, { function: fn });

    const requests = props.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    const errors = props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
    // A rate, counted only once there is traffic enough for one failure not to be an outage.
    const errorRate = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors },
      period: FIVE_MINUTES,
      label: '5xx %',
    });
    this.alarm('Api5xxRate', errorRate, 1, '1% or more of API requests answered 5xx, in 2 of 3 five-minute periods', TWO_OF_THREE);
    for (const [name, machine] of Object.entries(props.machines)) {
      // Aborted executions are not here: a customer's cancel and a deadline stop the execution (ExecutionsAborted),
      // which is business as usual; one stopped by anyone else is ExecutionsAbortedUnexpectedly below.
      const failed = new MathExpression({
        expression: 'failed + timedOut',
        usingMetrics: {
          failed: machine.metricFailed({ period: FIVE_MINUTES, statistic: 'Sum' }),
          timedOut: machine.metricTimedOut({ period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        period: FIVE_MINUTES,
      });
      // Orders that fail generation end their execution in success (MarkFailed -> Refunded); a failed execution is a bug
      // or an outage of the steps themselves.
      const title = `${name[0]!.toUpperCase()}${name.slice(1)}`;
      this.alarm(`${title}ExecutionsFailed`, failed, 1, `A ${name} workflow execution failed or timed out`);
      this.alarm(
        `${title}ExecutionsThrottled`,
        machine.metric('ExecutionThrottled', { period: FIVE_MINUTES, statistic: 'Sum' }),
        1,
        `Step Functions throttled the ${name} workflow's state transitions, in 2 of 3 five-minute periods`,
        TWO_OF_THREE,
      );
    }
    // Counted by the recovery of the execution's status-change event, which also carries the order on.
    this.alarm(
      'ExecutionsAbortedUnexpectedly',
      business('ExecutionsAbortedUnexpectedly'),
      1,
      'An execution of either workflow was stopped from outside the service (an operator, a console, a script) while its order or event was open; the recovery started it anew',
    );
    // Charged orders whose StartExecution failed: each waits for the sweep (a minute), so the first one pages.
    this.alarm(
      'WorkflowStartsFailed',
      business('WorkflowStartsFailed'),
      1,
      'A charged order could not start its workflow (Step Functions refused or was unreachable); the sweep starts it',
    );
    // One receiver down drops its events after 5 attempts; many drops in an hour point at the sender.
    this.alarm('WebhookDeliveriesDropped', business('WebhookDeliveriesDropped', Duration.hours(1)), 10, 'Ten or more webhook events dropped in an hour');
    // Renders that fail for good (GeneratorFailed: refunded) are out of the render's error rate; half of the renders
    // or more, for 3 of 5 periods, is a renderer broken for everyone, not an order's bad luck. (Not every outcome: a
    // taken-over order's render asks every 10 s while another execution's render may run, RenderInFlight.)
    const renderFn = props.functions.get('render-video');
    if (renderFn) {
      this.alarm(
        'RendersFailing',
        new MathExpression({
          expression: 'IF(calls >= 10, 100 * FILL(failed, 0) / calls, 0)',
          usingMetrics: {
            calls: renderFn.metricInvocations({ period: FIVE_MINUTES, statistic: 'Sum' }),
            failed: ofFunction('GenerationsFailed', 'render-video'),
          },
          period: FIVE_MINUTES,
          label: 'renders failed (refunded) %',
        }),
        RENDERS_FAILING_PERCENT,
        `${RENDERS_FAILING_PERCENT}% or more of the renders failed and were refunded, in 3 of 5 periods: the renderer or its provider is broken`,
        THREE_OF_FIVE,
      );
    }
    const steps = new Set(STEPS.map((s) => s.module));
    for (const [name, fn] of props.functions) {
      this.alarm(
        `Throttles-${name}`,
        fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        1,
        `The ${name} function was throttled, in 2 of 3 five-minute periods`,
        TWO_OF_THREE,
        FUNCTION_THROTTLES,
      );
      // The rate of faults, once there are calls enough, for 3 of 5 periods. A step throws the workflow's business
      // outcomes (an order closed meanwhile, a failed generation refunded) for its Catch, and Lambda counts them in
      // Errors: the step handler counts them apart (StepOutcomeErrors), and they are taken out.
      const calls = fn.metricInvocations({ period: FIVE_MINUTES, statistic: 'Sum' });
      const errors = fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' });
      const errorRate = steps.has(name)
        ? new MathExpression({
            expression: 'IF(calls >= 10, 100 * (errors - FILL(outcomes, 0)) / calls, 0)',
            usingMetrics: { calls, errors, outcomes: ofFunction('StepOutcomeErrors', name) },
            period: FIVE_MINUTES,
            label: `${name} errors % (outcomes out)`,
          })
        : new MathExpression({
            expression: 'IF(calls >= 10, 100 * errors / calls, 0)',
            usingMetrics: { calls, errors },
            period: FIVE_MINUTES,
            label: `${name} errors %`,
          });
      this.alarm(
        `Errors-${name}`,
        errorRate,
        ERROR_RATE_PERCENT,
        `${ERROR_RATE_PERCENT}% or more of the ${name} function's calls failed${steps.has(name) ? " (the workflow's business outcomes out)" : ''}, in 3 of 5 periods`,
        THREE_OF_FIVE,
        FUNCTION_ERRORS,
      );
      const timeout = fn.timeout?.toMilliseconds() ?? 3000;
      this.alarm(
        `NearTimeout-${name}`,
        fn.metricDuration({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        Math.round(timeout * NEAR_TIMEOUT),
        `A call of the ${name} function ran ${NEAR_TIMEOUT * 100}% of its ${timeout / 1000} s timeout, in 2 of 3 periods`,
        TWO_OF_THREE,
        FUNCTION_NEAR_TIMEOUT,
      );
    }
    const tableThrottles = new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: props.table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        writes: props.table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
    });
    this.alarm('TableThrottles', tableThrottles, 1, 'DynamoDB throttled reads or writes of the table, in 2 of 3 five-minute periods', TWO_OF_THREE);
    // The render queue, measured by the sweep every minute.
    const gauge = (name: GaugeName) => ours(name, 'Maximum', FIVE_MINUTES);
    this.alarm(
      'ApiOrdersWaitTooLong',
      gauge('OldestWaitingApiSeconds'),
      props.queueWaitAlarmSeconds,
      `An API order has waited ${props.queueWaitAlarmSeconds} s or more for a render slot: raise renderSlots, or look at the renders`,
    );
    // A queue that grows minute after minute for 15 minutes: arrivals outrun the slots, well before the oldest wait
    // reaches its alarm. The sweep measures the depth once a minute; DIFF is each minute's change.
    const depth = ours('QueueDepthApi', 'Maximum', Duration.minutes(1));
    const growing = new MathExpression({
      expression: 'IF(DIFF(depth) > 0, 1, 0)',
      usingMetrics: { depth },
      period: Duration.minutes(1),
      label: 'API queue grew this minute',
    });
    this.alarm(
      'ApiQueueGrowing',
      growing,
      1,
      `The API render queue grew in each of ${QUEUE_GROWTH_MINUTES} minutes in a row: orders arrive faster than the slots render them (docs/deploy.md, Sizing)`,
      { datapoints: QUEUE_GROWTH_MINUTES, periods: QUEUE_GROWTH_MINUTES },
    );
    const recovered = new MathExpression({
      expression: 'orders + deliveries',
      usingMetrics: { orders: business('OrdersRecovered'), deliveries: business('DeliveriesRecovered') },
      period: FIVE_MINUTES,
    });
    this.alarm(
      'SweepRecovered',
      recovered,
      1,
      'The recovery or the audit started an order or a webhook delivery that was lost (a StartExecution failed after the charge or the event, a wake-up or an execution lost) or ended with its work open',
    );

    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `VideoService-${props.stage}` });
    const graph = (title: string, left: IMetric[], width = 8) => new GraphWidget({ title, left, width });
    const render = props.functions.get('render-video');
    dashboard.addWidgets(
      graph('API requests and errors', [requests, props.api.metricClientError({ period: FIVE_MINUTES, statistic: 'Sum' }), errors]),
      graph('API latency (p50, p99)', [props.api.metricLatency({ statistic: 'p50' }), props.api.metricLatency({ statistic: 'p99' })]),
      graph(
        'Orders',
        (['OrdersCreated', 'OrdersDone', 'OrdersFailed', 'OrdersRefunded'] as const).map((m) => business(m)),
      ),
    );
    dashboard.addWidgets(
      graph('Order executions', [props.machines.order.metricStarted(), props.machines.order.metricSucceeded(), props.machines.order.metricFailed()]),
      graph('Webhook deliveries', [props.machines.delivery.metricStarted(), business('WebhookDeliveriesDropped')]),
      graph('Render duration (p50, max)', render ? [render.metricDuration({ statistic: 'p50' }), render.metricDuration({ statistic: 'Maximum' })] : []),
    );
    // What sizing reads after a deploy (docs/deploy.md, Sizing): a render's seconds per second of video.
    const renderSpeed = (statistic: string) =>
      ours('RenderSecondsPerVideoSecond', statistic, Duration.hours(1), { label: `render s per video s (${statistic})` });
    dashboard.addWidgets(
      graph('Render seconds per video second (hourly avg, p90)', [renderSpeed('Average'), renderSpeed('p90')]),
      graph('API queue: depth each minute', [depth]),
      graph(
        'Webhook deliveries throttled',
        props.functions.has('deliver-event') ? [props.functions.get('deliver-event')!.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' })] : [],
      ),
    );
    dashboard.addWidgets(
      graph('Render queue: waiting orders', [gauge('QueueDepthApi'), gauge('QueueDepthBot')]),
      graph('Render queue: oldest wait (s)', [gauge('OldestWaitingApiSeconds'), gauge('OldestWaitingBotSeconds')]),
      graph('Render slots in use, recoveries', [
        gauge('SlotsInUse'),
        business('OrdersRecovered'),
        business('DeliveriesRecovered'),
        business('SlotsReclaimed'),
        business('ExecutionsAbortedUnexpectedly'),
      ]),
    );
    for (const widget of alarmWidgets(this.alarms)) dashboard.addWidgets(widget);

    new CfnOutput(scope, 'AlarmTopicArn', { value: this.topic.topicArn });
    new CfnOutput(scope, 'DashboardName', { value: dashboard.dashboardName });
  }

  private alarm(
    id: string,
    metric: IMetric,
    threshold: number,
    description: string,
    of: { datapoints: number; periods: number } = ONE_OF_ONE,
    group = SERVICE,
  ): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: of.periods,
      datapointsToAlarm: of.datapoints,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.get(group)!.push(alarm);
  }
}
