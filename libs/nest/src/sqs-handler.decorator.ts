import { DiscoveryService } from '@nestjs/core';

/**
 * Marks a provider method as the handler for messages. Give it a name to choose among
 * several handlers (`handlerName` in the module options); the default name is `default`.
 *
 * The method is looked up on the instance for every message and called as a method, not
 * snapshotted with `.bind()`, so interceptors, tracing wrappers and request-scoped
 * providers keep working.
 */
export const SqsHandler = DiscoveryService.createDecorator<string>();
