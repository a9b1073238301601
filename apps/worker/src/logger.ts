import { redactSecrets, REDACTED } from '@requeue/retry/engine';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import type { WorkerConfig } from './config.js';

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
