import type { SQSClient } from '@aws-sdk/client-sqs';

/** The name the SDK registers its per-call logger middleware under. */
const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/**
 * Removes the SDK's per-call logger middleware from a client. On every call it runs the
 * SDK's sensitive-field filter over the whole request and response (every received body
 * and attribute) to hand them to `logger.info`, even when the logger is the SDK's no-op
 * default. The worker logs its own outcomes, so that work buys nothing: measured in
 * process, about 3 µs a message on the happy path and 10-20 µs on a retry, whose copies
 * carry attributes. Calls still fail with the SDK's errors, which the worker logs.
 */
export function withoutSdkCallLogging<T extends SQSClient>(client: T): T {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
