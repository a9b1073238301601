import { DiscoveryService } from '@nestjs/core';
import type { BodySchema, IdempotencyOptions, InferBody, WorkerMessage } from '@requeue/sqs';

/** What `@SqsHandler` and `@SqsBatchHandler` record on a method. */
export interface SqsHandlerMetadata {
  name: string;
  schema: BodySchema | undefined;
  idempotency: IdempotencyOptions | undefined;
  /** Set by `@SqsBatchHandler`: the method takes a batch. */
  batch?: { size?: number; windowMs?: number };
}

/** The discovery key the handler metadata is stored under. */
export const SqsHandlerMetadataKey = DiscoveryService.createDecorator<SqsHandlerMetadata>();

/** What `@SqsHandler` returns: a method decorator that checks the method takes a `WorkerMessage<Body>`. */
export type HandlerDecorator<Body> = <M extends (message: WorkerMessage<Body>) => Promise<void>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Marks a provider method as a message handler. Give it a name to choose it from the
 * module options (`handlerName`, or a consumer's); the default name is `default`.
 *
 * With `{ schema }` (any Standard Schema validator: zod, valibot, arktype) every body is
 * validated before the method runs; the method gets the schema's output, and TypeScript
 * checks that its parameter is `WorkerMessage<the schema's output>`. A body that fails is
 * dead-lettered `non-retryable` with errorType `VALIDATION` and the validator's issues.
 *
 * With `{ idempotency }` each key's method runs once (docs/worker.md): a duplicate ends as a
 * success without a call; its `key(message)` gets the body as the schema's output. It takes precedence over the consumer's `idempotency` option,
 * which suits a store built from configuration (`forRootAsync`) better.
 *
 * The method is looked up on the instance for every message and called as a method, not
 * snapshotted with `.bind()`, so interceptors, tracing wrappers and request-scoped
 * providers keep working.
 */
export function SqsHandler<S extends BodySchema>(
  name: string,
  options: { schema: S; idempotency?: IdempotencyOptions<InferBody<S>> },
): HandlerDecorator<InferBody<S>>;
/** Without a schema the body is unchecked JSON: the method may type it as it trusts it (`never` admits any body type). */
export function SqsHandler(name?: string, options?: { idempotency?: IdempotencyOptions }): HandlerDecorator<never>;
export function SqsHandler(name = 'default', options: { schema?: BodySchema; idempotency?: IdempotencyOptions<never> } = {}): HandlerDecorator<never> {
  // The key function was typed by the schema's output, which the engine validates before calling it.
  const mark = SqsHandlerMetadataKey({ name, schema: options.schema, idempotency: options.idempotency as IdempotencyOptions | undefined });
  return (target, key, descriptor) => mark(target, key, descriptor);
}
