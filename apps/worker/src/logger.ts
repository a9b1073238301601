import { redactSecrets, REDACTED } from '@requeue/retry';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import type { WorkerConfig } from './config.js';

/**
 * Paths the worker really logs that can hold secrets: `err` is any error an SDK or HTTP
 * client threw, and such errors carry the request they made (headers, auth, body) and
 * the response. Error text (`error`, `problem`, `deadLetter.error`) is scrubbed where it
 * is made, by the classifier; `err`'s message and stack are scrubbed by its serializer.
 */
export const DEFAULT_LOG_REDACT: readonly string[] = [
  'err.config.headers',
  'err.config.auth',
  'err.config.data',
  'err.request',
  'err.response.config',
  'err.response.request',
  'err.response.headers',
  'err.headers',
];

/** The worker's pino logger: the configured level and redaction, and error text without secrets. */
export function createWorkerLogger(config: Pick<WorkerConfig, 'logLevel' | 'logRedact'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: config.logRedact, censor: REDACTED },
    base: { service: 'requeue-worker' },
    serializers: { err: scrubbedError },
  };
  return destination ? pino(options, destination) : pino(options);
}

function scrubbedError(error: Error): Record<string, unknown> {
  const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const key of ['message', 'stack'] as const) {
    const value = serialized[key];
    if (typeof value === 'string') serialized[key] = redactSecrets(value);
  }
  return serialized;
}
