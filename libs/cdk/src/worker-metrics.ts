import type { DeadLetterReason } from '@requeue/retry';
import { MetricDimension, MetricName } from '@requeue/sqs/metric-names';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

const MINUTE = Duration.minutes(1);

/**
 * The worker's EMF metrics (`@requeue/sqs/metric-names`). Every count is published under the
 * `Queue` dimension alone, which alarms need (they cannot use SEARCH), and retried and
 * dead-lettered counts also per `ErrorType` and `Reason`.
 */
export function workerMetrics(namespace: string, queueName: string) {
  const metric = (metricName: string, statistic: string, label?: string) =>
    new cloudwatch.Metric({ namespace, metricName, dimensionsMap: { [MetricDimension.queue]: queueName }, statistic, period: MINUTE, label });
  return {
    received: metric(MetricName.received, 'Sum'),
    succeeded: metric(MetricName.succeeded, 'Sum'),
    retried: metric(MetricName.retried, 'Sum'),
    deadLettered: metric(MetricName.deadLettered, 'Sum'),
    deadLetteredFor: (reason: DeadLetterReason) =>
      new cloudwatch.Metric({
        namespace,
        metricName: MetricName.deadLettered,
        dimensionsMap: { [MetricDimension.queue]: queueName, [MetricDimension.reason]: reason },
        statistic: 'Sum',
        period: MINUTE,
      }),
    firstFailures: metric(MetricName.firstFailures, 'Sum'),
    handlerDuration: (statistic: 'p50' | 'p99') => metric(MetricName.handlerDuration, statistic, `Handler ${statistic}`),
    retryDelay: (statistic: 'Average' | 'Maximum') => metric(MetricName.retryDelay, statistic, `Delay ${statistic.toLowerCase()}`),
    worstTenantDwell: metric(MetricName.worstTenantDwell, 'Maximum', 'Worst tenant'),
    search: (metricName: string, dimension: string, statistic: 'Sum' | 'Maximum' = 'Sum') =>
      new cloudwatch.SearchExpression({
        expression:
          `SEARCH('{${namespace},${MetricDimension.queue},${dimension}} MetricName="${metricName}" ` +
          `${MetricDimension.queue}="${queueName}"', '${statistic}', 60)`,
        label: `\${PROP('Dim.${dimension}')}`,
        period: MINUTE,
      }),
  };
}

export type WorkerMetrics = ReturnType<typeof workerMetrics>;
