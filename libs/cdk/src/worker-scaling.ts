import { Duration } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { runningTaskCount } from './service-metrics.js';

/** What the scaling follows: the backlog per task it keeps, and the bounds. */
export interface BacklogScalingInput {
  queue: sqs.IQueue;
  cluster: ecs.ICluster;
  service: ecs.FargateService;
  minCapacity: number;
  maxCapacity: number;
  /** Visible messages per running task the service aims at. */
  targetBacklogPerTask: number;
}

const MINUTE = 60;

/**
 * Target tracking on backlog per task, AWS's guidance for queue workers: the queue's
 * visible messages divided by the service's running tasks, through the scaling policy
 * resource (the L2 target-tracking API takes no metric math, aws-cdk#34072). Target
 * tracking scales in proportion to the running tasks, so it cannot leave zero: a step
 * policy adds the first task when messages wait and none runs.
 */
export function scaleOnBacklog(scope: Construct, input: BacklogScalingInput): void {
  const taskCount = input.service.autoScaleTaskCount({ minCapacity: input.minCapacity, maxCapacity: input.maxCapacity });
  // The scalable target the L2 builds beneath the task count.
  const target = taskCount.node.findChild('Target') as appscaling.ScalableTarget;
  const ids = { visible: 'visible', running: 'running' };
  new appscaling.CfnScalingPolicy(scope, 'TrackBacklogPerTask', {
    policyName: `${input.service.node.path.replace(/\//g, '-')}-backlog-per-task`,
    policyType: 'TargetTrackingScaling',
    scalingTargetId: target.scalableTargetId,
    targetTrackingScalingPolicyConfiguration: {
      targetValue: input.targetBacklogPerTask,
      scaleOutCooldown: MINUTE,
      scaleInCooldown: 5 * MINUTE,
      customizedMetricSpecification: {
        metrics: [
          {
            id: ids.visible,
            returnData: false,
            metricStat: {
              metric: {
                namespace: 'AWS/SQS',
                metricName: 'ApproximateNumberOfMessagesVisible',
                dimensions: [{ name: 'QueueName', value: input.queue.queueName }],
              },
              stat: 'Maximum',
            },
          },
          {
            id: ids.running,
            returnData: false,
            metricStat: {
              metric: {
                namespace: 'ECS/ContainerInsights',
                metricName: 'RunningTaskCount',
                dimensions: [
                  { name: 'ClusterName', value: input.cluster.clusterName },
                  { name: 'ServiceName', value: input.service.serviceName },
                ],
              },
              stat: 'Average',
            },
          },
          {
            id: 'backlog',
            returnData: true,
            label: 'Visible messages per running task',
            expression: 'IF(FILL(running, 0) > 0, visible / FILL(running, 0), visible)',
          },
        ],
      },
    },
  });
  scaleOutFromZero(scope, target, input);
}

function scaleOutFromZero(scope: Construct, target: appscaling.ScalableTarget, input: BacklogScalingInput): void {
  const period = Duration.minutes(1);
  const waitingWithNoTask = new cloudwatch.MathExpression({
    expression: 'IF(FILL(running, 0) == 0 AND visible > 0, 1, 0)',
    usingMetrics: {
      visible: input.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      running: runningTaskCount(input.cluster, input.service),
    },
    period,
  });
  const action = new appscaling.StepScalingAction(scope, 'ScaleOutFromZero', {
    scalingTarget: target,
    adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
    cooldown: Duration.minutes(1),
  });
  action.addAdjustment({ adjustment: 1, lowerBound: 0 });
  const alarm = new cloudwatch.Alarm(scope, 'WorkWaitingWithNoTask', {
    alarmDescription: 'requeue worker scaling: messages wait and no task runs; start one (target tracking cannot leave zero)',
    metric: waitingWithNoTask,
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new cwActions.ApplicationScalingAction(action));
}
