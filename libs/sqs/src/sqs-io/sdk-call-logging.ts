import type { SQSClient } from '@aws-sdk/client-sqs';

/** The name the SDK registers its per-call logger middleware under. */
const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/**
 * Removes the SDK's per-call logger middleware from a client. On every call it runs the
 * SDK's sensitive-field filter over the whole request and response (every received body
 * and attribute) to hand them to `logger.info`, even when the logger is the SDK's no-op
 * default. The worker logs its own outcomes, so that work buys nothing, and it grows with
 * the attributes a retry's copy carries. Calls still fail with the SDK's errors, which
 * the worker logs.
 */
export function withoutSdkCallLogging<T extends SQSClient>(client: T): T {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
