/**
 * Business metrics as CloudWatch embedded metric format through Powertools Metrics: written with the function's logs,
 * no API call. The namespace comes from POWERTOOLS_METRICS_NAMESPACE; one machine sets POWERTOOLS_METRICS_DISABLED.
 * Every metric carries the dimensions `service` and `stage` (STAGE: the CDK stack sets the stage's name on every
 * function, one machine `local`), so that stages sharing an account and region never mix in an alarm or a figure.
 */
import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { FunctionMetricName, Metrics } from '../core/ports.ts';

const SERVICE = 'video-service';

const powertoolsMetrics = new PowertoolsMetrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VideoService',
  serviceName: SERVICE,
  defaultDimensions: { stage: process.env.STAGE ?? 'local' },
});

export const metrics: Metrics = {
  count: (name) => powertoolsMetrics.addMetric(name, MetricUnit.Count, 1),
  gauge: (name, value, unit) => powertoolsMetrics.addMetric(name, unit === 'Seconds' ? MetricUnit.Seconds : MetricUnit.Count, value),
};

/**
 * Counts a metric of one function (`fn`: its name as lib/functions.ts and the step table name it), with the dimension
 * `function` beside the service's own: a record of its own, written at once, since one record has one set of
 * dimensions for all its metrics.
 */
export function countOfFunction(name: FunctionMetricName, fn: string): void {
  const single = powertoolsMetrics.singleMetric();
  single.addDimension('function', fn);
  single.addMetric(name, MetricUnit.Count, 1);
}

/**
 * Flushes the metrics an invocation counted, after it returns or fails. Powertools' own logMetrics middleware would
 * also log a warning on every invocation that counted nothing (most GETs), which only costs log ingestion.
 */
export const publishMetrics = () => {
  const flush = () => {
    if (powertoolsMetrics.hasStoredMetrics()) powertoolsMetrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
};
