/**
 * The SQS engine: long-polls a queue, runs your handler with a retry policy from
 * `@requeue/retry`, retries by delayed copies, dead-letters with the reason, keeps each
 * message invisible while it runs, and acknowledges in batches. Subpaths:
 * `@requeue/sqs/publisher` (publish with a per-message policy), `@requeue/sqs/dead-letters`
 * (inspect, replay, redrive, discard), `@requeue/sqs/emf` (CloudWatch metrics),
 * `@requeue/sqs/metric-names`, `@requeue/sqs/backpressure` (the backpressure settings' types, and
 * the interface for fleet store writers).
 *
 * @example
 * ```ts
 * import { SqsWorker } from '@requeue/sqs';
 * import { createRetryPolicy } from '@requeue/retry';
 *
 * const worker = new SqsWorker({
 *   sqs: new SQSClient({}),
 *   queueUrl: process.env.QUEUE_URL!,
 *   deadLetterQueueUrl: process.env.DLQ_URL!,
 *   retryPolicy: createRetryPolicy({ maxAttempts: 6 }),
 *   handler: async (message) => deliverWebhook(message.body, { signal: message.signal }),
 * });
 * await worker.start();
 * process.on('SIGTERM', () => void worker.stop());
 * ```
 *
 * @packageDocumentation
 */
export type { BodySchema, InferBody } from './message/body-schema.js';
export { BatchResultMissingError, type BatchContext, type BatchHandler, type BatchItemResult, type BatchOptions } from './batch/batch-options.js';
export { SqsOperationError, SqsWorkerConfigError } from './errors.js';
export { QueueUnavailableError, type QueueUnavailableReason } from './receive/queue-unavailable.js';
export { HandlerTimeoutError } from './delivery/handler-runner.js';
export type { IdempotencyOptions, IdempotencyStore, IdempotencyStoreRecord } from './idempotency/options.js';
export type { WorkerLogger } from './events/logger.js';
export type { WorkerMetrics } from './events/metrics.js';
export type { MessageHandler, SqsWorkerOptions } from './options.js';
export type { TenantOptions } from './tenants/options.js';
export type { TenantKey } from './tenants/tenant-key.js';
export type { TenantLoad, TenantsSnapshot } from './tenants/tenant-dwell.js';
export type { ScheduledRetry } from './delivery/scheduled-retries.js';
export { withoutSdkCallLogging } from './sqs-io/sdk-call-logging.js';
export { SqsWorker } from './worker.js';
export { WorkerStoppingError } from './errors.js';
export type { WorkerHealth } from './worker-health.js';
export type { WorkerMessage } from './message/worker-message.js';
export type { WorkerEvents } from './events/worker-events.js';
