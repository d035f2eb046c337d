/**
 * Business metrics as CloudWatch embedded metric format through Powertools Metrics: written with the function's logs,
 * no API call. The namespace comes from POWERTOOLS_METRICS_NAMESPACE; one machine sets POWERTOOLS_METRICS_DISABLED.
 */
import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Metrics } from '../core/ports.ts';

const powertoolsMetrics = new PowertoolsMetrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VideoService', serviceName: 'video-service' });

export const metrics: Metrics = {
  count: (name) => powertoolsMetrics.addMetric(name, MetricUnit.Count, 1),
  gauge: (name, value, unit) => powertoolsMetrics.addMetric(name, unit === 'Seconds' ? MetricUnit.Seconds : MetricUnit.Count, value),
};

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
