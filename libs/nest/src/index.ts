import 'reflect-metadata';

export { SqsHandlerNotFoundError } from './handler-resolver.js';
export { SqsHealthIndicator } from './sqs-health.indicator.js';
export { SqsHandler } from './sqs-handler.decorator.js';
export { SqsWorkerModule } from './sqs-worker.module.js';
export { MODULE_OPTIONS_TOKEN as SQS_WORKER_OPTIONS, type SqsWorkerModuleOptions } from './sqs-worker.options.js';
export { SqsWorkerService } from './sqs-worker.service.js';
