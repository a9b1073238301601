import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import {
  DEFAULT_METRICS_NAMESPACE,
  FleetStateTable,
  IdempotencyTable,
  QueueMonitoring,
  QueueWorkerService,
  RetryingQueue,
  type QueueMonitoringProps,
  type FleetStateTableProps,
  type IdempotencyTableProps,
  type QueueWorkerServiceProps,
  type RetryingQueueProps,
} from '@requeue/cdk';
import { workerImageFromRepository } from './worker-image.js';

/** This repository's worker: the image built from apps/worker, running the webhook handler. */
export interface RequeueWorkerProps extends Omit<QueueWorkerServiceProps, 'queue' | 'deadLetterQueue' | 'image'> {
  /** @default - built from apps/worker/Dockerfile as an asset */
  readonly image?: ecs.ContainerImage;
}

export interface RequeueStackProps extends StackProps {
  /** The topic, the queue and the DLQ. @default - RetryingQueue's defaults */
  readonly queue?: RetryingQueueProps;
  /**
   * The Fargate worker, or `false` for queues and monitoring only: for running the worker
   * elsewhere, or on emulators without ECS (LocalStack's free edition).
   * @default - QueueWorkerService's defaults
   */
  readonly worker?: RequeueWorkerProps | false;
  /**
   * Idempotent handlers: a DynamoDB table for the records (on-demand, TTL, point-in-time
   * recovery, encrypted), the worker's grants on it, and `WORKER_IDEMPOTENCY_KEY` from
   * `key` (`message`, or a path into the body such as `body.orderId`). Needs the worker.
   * @default - off
   */
  readonly idempotency?: IdempotencyTableProps & { readonly key?: string };
  /**
   * Backpressure shared by the worker's tasks: a DynamoDB table for their reports
   * (on-demand, TTL, encrypted) and UpdateItem on it. Costs a write a second per task, only
   * while a dependency pushes back. Needs the worker.
   * @default - off: each task paces on its own
   */
  readonly fleetState?: FleetStateTableProps | boolean;
  /** Alarms and dashboard. @default - QueueMonitoring's defaults, named `requeue-<stack name>` */
  readonly monitoring?: Omit<QueueMonitoringProps, 'topic' | 'queue' | 'deadLetterQueue' | 'service' | 'metricsNamespace'>;
}

/**
 * Everything requeue runs on: producers publish to the topic, the worker consumes the
 * queue, retries wait in it as delayed copies, and what cannot succeed lands in the DLQ
 * with its reason. Outputs the addresses operators and producers need.
 */
export class RequeueStack extends Stack {
  readonly retryingQueue: RetryingQueue;
  readonly worker: QueueWorkerService | undefined;
  readonly idempotencyTable: IdempotencyTable | undefined;
  readonly fleetStateTable: FleetStateTable | undefined;
  readonly monitoring: QueueMonitoring;

  constructor(scope: Construct, id: string, props: RequeueStackProps = {}) {
    super(scope, id, { description: 'requeue: SNS topic, SQS queue with retries and DLQ, Fargate worker, alarms and dashboard', ...props });
    this.retryingQueue = new RetryingQueue(this, 'Jobs', props.queue);
    const { queue, deadLetterQueue, topic } = this.retryingQueue;
    const { key: idempotencyKey, ...tableProps } = props.idempotency ?? {};
    this.idempotencyTable = props.idempotency && props.worker !== false ? new IdempotencyTable(this, 'Idempotency', tableProps) : undefined;
    const fleetState = props.fleetState === true ? {} : props.fleetState || undefined;
    this.fleetStateTable = fleetState && props.worker !== false ? new FleetStateTable(this, 'FleetState', fleetState) : undefined;
    this.worker =
      props.worker === false
        ? undefined
        : new QueueWorkerService(this, 'Worker', {
            handler: 'webhook',
            ...props.worker,
            image: props.worker?.image ?? workerImageFromRepository(props.worker?.cpuArchitecture),
            queue,
            deadLetterQueue,
            ...(this.idempotencyTable ? { idempotencyTable: this.idempotencyTable, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) } : {}),
            ...(this.fleetStateTable ? { fleetStateTable: this.fleetStateTable } : {}),
          });
    this.monitoring = new QueueMonitoring(this, 'Monitoring', {
      dashboardName: `requeue-${this.stackName}`,
      tenants: props.worker !== false && props.worker?.tenants !== undefined,
      ...props.monitoring,
      topic,
      queue,
      deadLetterQueue,
      service: this.worker?.service,
      ...(this.worker ? { workerLogGroup: this.worker.logGroup } : {}),
      ...(this.worker?.spotInterruptions ? { spotInterruptions: this.worker.spotInterruptions } : {}),
      metricsNamespace: this.worker?.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    });

    new CfnOutput(this, 'TopicArn', { value: topic.topicArn, description: 'Publish jobs here' });
    new CfnOutput(this, 'QueueUrl', { value: queue.queueUrl, description: 'The queue the worker consumes' });
    new CfnOutput(this, 'DLQUrl', { value: deadLetterQueue.queueUrl, description: 'Dead letters: inspect, replay or discard with `requeue dlq`' });
    new CfnOutput(this, 'DashboardUrl', { value: this.monitoring.dashboardUrl, description: 'The CloudWatch dashboard' });
    if (this.idempotencyTable)
      new CfnOutput(this, 'IdempotencyTableName', { value: this.idempotencyTable.tableName, description: "The worker's idempotency records" });
    if (this.fleetStateTable)
      new CfnOutput(this, 'FleetStateTableName', { value: this.fleetStateTable.tableName, description: "Backpressure shared by the worker's tasks" });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.alarmTopic.topicArn, description: 'Subscribe to receive alarms' });
  }
}
