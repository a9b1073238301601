import type { Type } from '@nestjs/common';
import { ContextIdFactory, type DiscoveryService, type MetadataScanner, type ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { BatchHandler, BodySchema, IdempotencyOptions, MessageHandler } from '@requeue/sqs';
import { SqsHandlerMetadataKey, type SqsHandlerMetadata } from './sqs-handler.decorator.js';

/** No `@SqsHandler` of the configured name exists, or several do. */
export class SqsHandlerNotFoundError extends Error {
  constructor(handlerName: string, found: string[]) {
    super(
      found.length === 0
        ? `no @SqsHandler('${handlerName}') method was found among the application's providers; decorate one, or set handlerName to one that exists`
        : `@SqsHandler('${handlerName}') is declared more than once (${found.join(', ')}); give each handler its own name`,
    );
    this.name = 'SqsHandlerNotFoundError';
  }
}

type HandlerMethod = (...args: unknown[]) => Promise<unknown>;

/** A resolved `@SqsHandler` or `@SqsBatchHandler`: the call, the schema its bodies are validated with, and its idempotency guard. */
export type ResolvedHandler = { schema: BodySchema | undefined; idempotency: IdempotencyOptions | undefined } & (
  { handler: MessageHandler; batch?: undefined } | { batch: { handler: BatchHandler; size?: number; windowMs?: number }; handler?: undefined }
);

/**
 * Finds the `@SqsHandler(name)` method and returns a handler that resolves the provider
 * for every message: singletons are looked up on their instance each time (no `.bind()`
 * snapshot), request-scoped providers get a fresh DI context per message.
 */
export function resolveSqsHandler(handlerName: string, discovery: DiscoveryService, scanner: MetadataScanner, moduleRef: ModuleRef): ResolvedHandler {
  const matches: Array<{ wrapper: InstanceWrapper; method: string; metadata: SqsHandlerMetadata }> = [];
  for (const wrapper of discovery.getProviders()) {
    const prototype = (wrapper.metatype as Type | undefined)?.prototype as Record<string, unknown> | undefined;
    if (!prototype || typeof wrapper.metatype !== 'function') continue;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const target = prototype[method] as object;
      if (!Reflect.hasMetadata(SqsHandlerMetadataKey.KEY, target)) continue;
      const metadata = Reflect.getMetadata(SqsHandlerMetadataKey.KEY, target) as SqsHandlerMetadata;
      if (metadata.name === handlerName) matches.push({ wrapper, method, metadata });
    }
  }
  const [match, ...others] = matches;
  if (!match || others.length > 0)
    throw new SqsHandlerNotFoundError(
      handlerName,
      matches.map((m) => `${String(m.wrapper.name)}.${m.method}`),
    );
  const { schema, idempotency, batch } = match.metadata;
  const call = callerOf(match.wrapper, match.method, moduleRef);
  return batch
    ? { schema, idempotency, batch: { ...batch, handler: (messages, context) => call({ messages }, messages, context) as ReturnType<BatchHandler> } }
    : { schema, idempotency, handler: (message) => call({ message }, message) as Promise<void> };
}

/** Calls the method with `args`; a request-scoped provider is resolved afresh, with `request` as its request. */
function callerOf(wrapper: InstanceWrapper, method: string, moduleRef: ModuleRef): (request: object, ...args: unknown[]) => Promise<unknown> {
  if (wrapper.isDependencyTreeStatic()) {
    return (_request, ...args) => (wrapper.instance as Record<string, HandlerMethod>)[method]!(...args);
  }
  return async (request, ...args) => {
    const contextId = ContextIdFactory.create();
    moduleRef.registerRequestByContextId(request, contextId);
    const instance = await moduleRef.resolve<Record<string, HandlerMethod>>(wrapper.token as Type, contextId, { strict: false });
    return instance[method]!(...args);
  };
}
