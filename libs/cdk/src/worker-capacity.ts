import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { wholeNumber } from './validation.js';

/**
 * Fargate Spot beside on-demand Fargate: the first `onDemandBase` tasks on-demand, the
 * rest split by weight. Spot runs the same task for up to 70% less, and stops it with a
 * two-minute warning (SIGTERM, then SIGKILL 120 s later), which the worker's drain fits.
 */
export interface SpotCapacity {
  /** Tasks always on on-demand Fargate, so some capacity outlives a Spot reclaim. @default 1 */
  readonly onDemandBase?: number;
  /** On-demand's share of the tasks beyond the base. @default 1 */
  readonly onDemandWeight?: number;
  /** Spot's share of the tasks beyond the base. @default 3 */
  readonly spotWeight?: number;
}

/** The service's capacity-provider strategy with Spot; the cluster gets the Fargate providers when it is one this app builds. */
export function spotStrategy(spot: SpotCapacity, cluster: ecs.ICluster): ecs.CapacityProviderStrategy[] {
  // An imported cluster must have FARGATE and FARGATE_SPOT already (docs/infra.md).
  if (cluster instanceof ecs.Cluster) cluster.enableFargateCapacityProviders();
  return [
    {
      capacityProvider: 'FARGATE',
      base: wholeNumber('spot.onDemandBase', spot.onDemandBase ?? 1, 0, 100_000),
      weight: wholeNumber('spot.onDemandWeight', spot.onDemandWeight ?? 1, 0, 1000),
    },
    { capacityProvider: 'FARGATE_SPOT', weight: wholeNumber('spot.spotWeight', spot.spotWeight ?? 3, 1, 1000) },
  ];
}

/**
 * Spot interruptions of the service's tasks, counted: an EventBridge rule matching each
 * task stopped with stop code `SpotInterruption` (its STOPPED event only, so once per task),
 * read through the rule's `MatchedEvents`.
 */
export function spotInterruptionsMetric(scope: Construct, cluster: ecs.ICluster, service: ecs.FargateService): cloudwatch.Metric {
  const rule = new events.Rule(scope, 'SpotInterruptions', {
    description: "requeue worker: its tasks that Fargate Spot reclaimed (counted by the rule's MatchedEvents)",
    eventPattern: {
      source: ['aws.ecs'],
      detailType: ['ECS Task State Change'],
      detail: { clusterArn: [cluster.clusterArn], group: [`service:${service.serviceName}`], stopCode: ['SpotInterruption'], lastStatus: ['STOPPED'] },
    },
  });
  return new cloudwatch.Metric({
    namespace: 'AWS/Events',
    metricName: 'MatchedEvents',
    dimensionsMap: { RuleName: rule.ruleName },
    statistic: 'Sum',
    period: Duration.minutes(5),
    label: 'Spot interruptions',
  });
}
