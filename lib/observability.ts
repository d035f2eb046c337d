/**
 * What the platform team watches: alarms (to an SNS topic, and by e-mail when alarmEmail is set) on the API's 5xx
 * rate, failed executions, dropped webhook deliveries and throttles, and one dashboard with the business metrics
 * (orders created, done, failed, refunded; deliveries dropped) beside the AWS ones.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { GaugeName, MetricName } from '../functions/core/ports.ts';

export const METRICS_NAMESPACE = 'VideoService';
const FIVE_MINUTES = Duration.minutes(5);

export interface ObservabilityProps {
  stage: string;
  api: HttpApi;
  machines: { order: StateMachine; delivery: StateMachine };
  functions: Map<string, IFunction>;
  table: TableV2;
  alarmEmail?: string;
  /** The oldest API order's wait for a render slot that raises an alarm. */
  queueWaitAlarmSeconds: number;
}

export class Observability extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Alarms', { displayName: `Video service ${props.stage} alarms`, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const business = (name: MetricName, period = FIVE_MINUTES) =>
      new Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { service: 'video-service' }, statistic: 'Sum', period });

    const requests = props.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    const errors = props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
    // A rate, counted only once there is traffic enough for one failure not to be an outage.
    const errorRate = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors },
      period: FIVE_MINUTES,
      label: '5xx %',
    });
    this.alarm('Api5xxRate', errorRate, 1, 'More than 1% of API requests answered 5xx in 5 minutes');
    for (const [name, machine] of Object.entries(props.machines)) {
      const failed = new MathExpression({
        expression: 'failed + timedOut + aborted',
        usingMetrics: {
          failed: machine.metricFailed({ period: FIVE_MINUTES, statistic: 'Sum' }),
          timedOut: machine.metricTimedOut({ period: FIVE_MINUTES, statistic: 'Sum' }),
          aborted: machine.metricAborted({ period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        period: FIVE_MINUTES,
      });
      // Orders that fail generation end their execution normally (refunded, status error); a failed execution is a bug.
      this.alarm(`${name[0]!.toUpperCase()}${name.slice(1)}ExecutionsFailed`, failed, 1, `A ${name} workflow execution failed, timed out or was aborted`);
    }
    // One receiver down drops its events after 5 attempts; many drops in an hour point at the sender.
    this.alarm('WebhookDeliveriesDropped', business('WebhookDeliveriesDropped', Duration.hours(1)), 10, 'Ten or more webhook events dropped in an hour');
    for (const [name, fn] of props.functions) {
      this.alarm(`Throttles-${name}`, fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }), 1, `The ${name} function was throttled`);
    }
    const tableThrottles = new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: props.table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        writes: props.table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
    });
    this.alarm('TableThrottles', tableThrottles, 1, 'DynamoDB throttled reads or writes of the table');
    // The render queue, measured by the sweep every minute.
    const gauge = (name: GaugeName) =>
      new Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { service: 'video-service' }, statistic: 'Maximum', period: FIVE_MINUTES });
    this.alarm(
      'ApiOrdersWaitTooLong',
      gauge('OldestWaitingApiSeconds'),
      props.queueWaitAlarmSeconds,
      `An API order has waited ${props.queueWaitAlarmSeconds} s or more for a render slot: raise renderSlots, or look at the renders`,
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
      'The sweep started an order or a webhook delivery that had not started: a StartExecution failed after the charge or the event',
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
    dashboard.addWidgets(
      graph('Render queue: waiting orders', [gauge('QueueDepthApi'), gauge('QueueDepthBot')]),
      graph('Render queue: oldest wait (s)', [gauge('OldestWaitingApiSeconds'), gauge('OldestWaitingBotSeconds')]),
      graph('Render slots in use, recoveries', [gauge('SlotsInUse'), business('OrdersRecovered'), business('DeliveriesRecovered'), business('SlotsReclaimed')]),
    );
    dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));

    new CfnOutput(scope, 'AlarmTopicArn', { value: this.topic.topicArn });
    new CfnOutput(scope, 'DashboardName', { value: dashboard.dashboardName });
  }

  private alarm(id: string, metric: IMetric, threshold: number, description: string): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
