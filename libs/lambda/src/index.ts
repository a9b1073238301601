/**
 * requeue's retry policy on AWS Lambda: `sqsHandler(handler, options)` is a handler for an
 * SQS event source mapping with `ReportBatchItemFailures`. The same handlers, schemas,
 * policies and idempotency run here as in `@requeue/sqs`'s worker.
 *
 * @example
 * ```ts
 * import { sqsHandler } from '@requeue/lambda';
 * import { RetryableError } from '@requeue/retry';
 *
 * export const handler = sqsHandler(async (message) => {
 *   const response = await fetch('https://hooks.example.com/orders', { method: 'POST', body: message.rawBody, signal: message.signal });
 *   if (!response.ok) throw new RetryableError(`webhook answered ${response.status}`, { errorType: 'HTTP_5XX' });
 * });
 * ```
 *
 * @packageDocumentation
 */
export { sqsBatchHandler, sqsHandler, type SqsBatchHandlerOptions, type SqsHandlerOptions, type SqsLambdaHandler } from './sqs-handler.js';
export type { LambdaContext, SqsBatchResponse, SqsEvent, SqsEventMessageAttribute, SqsEventRecord, SqsEventRecordAttributes } from './lambda-event.js';
