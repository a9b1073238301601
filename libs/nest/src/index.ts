import 'reflect-metadata';

export { SqsHandlerNotFoundError } from './handler-resolver.js';
export { SqsHealthIndicator } from './sqs-health.indicator.js';
export { SqsHandler, type HandlerDecorator } from './sqs-handler.decorator.js';
export { SqsBatchHandler, type BatchHandlerDecorator, type BatchHandlerOptions } from './sqs-batch-handler.decorator.js';
export type { ConsumerHealth } from './consumer.js';
export { SqsWorkerModule } from './sqs-worker.module.js';
export {
  MODULE_OPTIONS_TOKEN as SQS_WORKER_OPTIONS,
  type BatchSettings,
  type ConsumerEngineOptions,
  type MultiConsumerModuleOptions,
  type SingleConsumerModuleOptions,
  type SqsConsumerOptions,
  type SqsModuleBehaviour,
  type SqsWorkerModuleOptions,
} from './sqs-worker.options.js';
export { SqsWorkerService, type ConsumersStarted } from './sqs-worker.service.js';
export { NestWorkerLogger } from './nest-worker-logger.js';

// What a handler needs, so an app installs @requeue/nest alone.
export { createRetryPolicy, NonRetryableError, RetryableError, UnrecoverableError, type RetryPolicy } from '@requeue/retry';
export type { BatchContext, BatchItemResult, BodySchema, IdempotencyOptions, InferBody, WorkerMessage } from '@requeue/sqs';
