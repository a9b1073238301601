import type { BatchContext, BatchItemResult, BodySchema, IdempotencyOptions, InferBody, WorkerMessage } from '@requeue/sqs';
import { SqsHandlerMetadataKey } from './sqs-handler.decorator.js';

/** What `@SqsBatchHandler` returns: a method decorator that checks the method takes the batch of `WorkerMessage<Body>`. */
export type BatchHandlerDecorator<Body> = <
  M extends (messages: ReadonlyArray<WorkerMessage<Body>>, context: BatchContext) => Promise<readonly BatchItemResult[] | void>,
>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/** `@SqsBatchHandler`'s options beyond `@SqsHandler`'s: the batch's shape. */
export interface BatchHandlerOptions {
  /** Messages per call at most. WORKER_BATCH_SIZE (a consumer's `batchSize`) overrides it. @default 10 */
  size?: number;
  /** How long a batch's first message waits for others. WORKER_BATCH_WINDOW_MS (`batchWindowMs`) overrides it. @default 50 */
  windowMs?: number;
}

/**
 * Marks a provider method as a batch handler: it gets up to `size` messages in one call and
 * resolves with nothing (all succeeded) or a result per message (`{ messageId, ok, error }`),
 * or throws (all failed with that error). Each failed message is retried or dead-lettered
 * by its own error and policy; a message the result leaves out counts as failed
 * (docs/worker.md, Batch handlers). Named, chosen, validated and made idempotent per
 * message as `@SqsHandler` is: a message whose key already completed is left out of the batch.
 */
export function SqsBatchHandler<S extends BodySchema>(
  name: string,
  options: BatchHandlerOptions & { schema: S; idempotency?: IdempotencyOptions<InferBody<S>> },
): BatchHandlerDecorator<InferBody<S>>;
/** Without a schema the bodies are unchecked JSON: the method may type them as it trusts them. */
export function SqsBatchHandler(name?: string, options?: BatchHandlerOptions & { idempotency?: IdempotencyOptions }): BatchHandlerDecorator<never>;
export function SqsBatchHandler(
  name = 'default',
  options: BatchHandlerOptions & { schema?: BodySchema; idempotency?: IdempotencyOptions<never> } = {},
): BatchHandlerDecorator<never> {
  const { schema, idempotency, size, windowMs } = options;
  const batch = { ...(size === undefined ? {} : { size }), ...(windowMs === undefined ? {} : { windowMs }) };
  // The key function was typed by the schema's output, which the engine validates before calling it.
  const mark = SqsHandlerMetadataKey({ name, schema, idempotency: idempotency as IdempotencyOptions | undefined, batch });
  return (target, key, descriptor) => mark(target, key, descriptor);
}
