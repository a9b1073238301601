export { type BodySchema, type InferBody } from './body-schema.js';
export { SqsOperationError, SqsWorkerConfigError } from './errors.js';
export { withoutSdkCallLogging } from './sdk-call-logging.js';
export { HandlerTimeoutError } from './handler-runner.js';
export { type WorkerLogger } from './logger.js';
export { EmfMetrics, noMetrics, type EmfMetricsOptions, type WorkerMetrics } from './metrics.js';
export { type MessageHandler, type SqsWorkerOptions } from './options.js';
export { type IdempotencyOptions, type IdempotencyRecordData, type IdempotencyStore, type IdempotencyStoreRecord } from './idempotency/options.js';
export { SqsWorker, WorkerStoppingError, type WorkerHealth } from './worker.js';
export { type ScheduledRetry } from './scheduled-retries.js';
export { type WorkerMessage } from './worker-message.js';
export {
  DeadLetterOperationError,
  deadLetterSummary,
  discardDeadLetters,
  redriveDeadLetters,
  release,
  replayDeadLetters,
  scanDlq,
  type DeadLetterQueue,
  type DlqEntry,
  type DlqFilter,
  type ReplayOptions,
  type ReplayResult,
} from './dead-letters/index.js';
export { queueDepth, type QueueDepth } from './queue-depth.js';
export {
  DEFAULT_BREAKER,
  isCurrentReport,
  type BackpressureOptions,
  type BreakerState,
  type CircuitBreakerOptions,
  type DeferCause,
  type DependencySnapshot,
  type FleetMemberState,
  type FleetOptions,
  type FleetStateStore,
} from './backpressure/index.js';
