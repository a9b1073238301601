export { InfraConfigError } from './errors.js';
export { FleetStateTable, type FleetStateTableProps } from './fleet-state-table.js';
export { IdempotencyTable, type IdempotencyTableProps } from './idempotency-table.js';
export { QueueMonitoring, type QueueMonitoringProps } from './queue-monitoring.js';
export type { AlarmThresholdProps } from './alarm-thresholds.js';
export { QueueWorkerService, type QueueWorkerServiceProps } from './queue-worker-service.js';
export { DEFAULT_FIFO_MAX_RECEIVE_COUNT, DEFAULT_MAX_RECEIVE_COUNT, RetryingQueue, type RetryingQueueProps } from './retrying-queue.js';
export { DEFAULT_METRICS_NAMESPACE } from './worker-settings.js';
export { workerNodeOptions } from './worker-node-options.js';
