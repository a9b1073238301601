/**
 * CDK constructs for a retrying SQS worker: the topic, queue and DLQ with redrive
 * (`RetryingQueue`), the worker on ECS Fargate scaled on backlog (`QueueWorkerService`),
 * and the alarms and dashboard an operator needs (`QueueMonitoring`).
 *
 * @example
 * ```ts
 * const orders = new RetryingQueue(this, 'Orders', { queueName: 'orders' });
 * const worker = new QueueWorkerService(this, 'Worker', {
 *   queue: orders.queue,
 *   deadLetterQueue: orders.deadLetterQueue,
 *   image: ecs.ContainerImage.fromAsset('../orders-worker'),
 * });
 * new QueueMonitoring(this, 'Monitoring', {
 *   topic: orders.topic,
 *   queue: orders.queue,
 *   deadLetterQueue: orders.deadLetterQueue,
 *   service: worker.service,
 *   metricsNamespace: worker.metricsNamespace,
 * });
 * ```
 *
 * @packageDocumentation
 */
export { InfraConfigError } from './errors.js';
export { FleetStateTable, type FleetStateTableProps } from './fleet-state-table.js';
export { IdempotencyTable, type IdempotencyTableProps } from './idempotency-table.js';
export { QueueMonitoring, type QueueMonitoringProps } from './queue-monitoring.js';
export type { AlarmThresholdProps } from './alarm-thresholds.js';
export { QueueWorkerFunction, type QueueWorkerFunctionProps } from './queue-worker-function.js';
export { QueueWorkerService } from './queue-worker-service.js';
export type { QueueWorkerServiceProps, WorkerBatchProps } from './queue-worker-service-props.js';
export { DEFAULT_FIFO_MAX_RECEIVE_COUNT, DEFAULT_MAX_RECEIVE_COUNT, RetryingQueue, type RetryingQueueProps } from './retrying-queue.js';
export { DEFAULT_METRICS_NAMESPACE } from './worker-settings.js';
export type { SpotCapacity } from './worker-capacity.js';
export { workerNodeOptions } from './worker-node-options.js';
