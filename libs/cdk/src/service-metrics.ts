import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/**
 * Backlog per task at a 1-minute period. With no task running (minCapacity 0, or all
 * crashed) the whole backlog counts, so the service still scales out from zero.
 */
export function backlogPerTask(queue: sqs.IQueue, cluster: ecs.ICluster, service: ecs.BaseService): cloudwatch.IMetric {
  const period = Duration.minutes(1);
  return new cloudwatch.MathExpression({
    expression: 'IF(FILL(running, 0) > 0, (visible + inflight) / FILL(running, 0), visible + inflight)',
    usingMetrics: {
      visible: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      inflight: queue.metricApproximateNumberOfMessagesNotVisible({ period, statistic: 'Maximum' }),
      running: runningTaskCount(cluster, service),
    },
    period,
    label: 'Backlog per task',
  });
}

/** Running tasks, from Container Insights (enabled on the cluster). */
export function runningTaskCount(cluster: ecs.ICluster, service: ecs.BaseService): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'ECS/ContainerInsights',
    metricName: 'RunningTaskCount',
    dimensionsMap: { ClusterName: cluster.clusterName, ServiceName: service.serviceName },
    statistic: 'Average',
    period: Duration.minutes(1),
  });
}
