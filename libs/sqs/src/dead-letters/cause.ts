import { createHash } from 'node:crypto';
import { dependencyOf, errorFingerprint } from './fingerprint.js';

/** What the dead letters of one cause share. */
export interface DeadLetterCause {
  reason: string;
  errorType: string;
  /** The error with ids, numbers and URLs masked. */
  fingerprint: string;
  /** The host of the first URL in the error, or null. */
  dependency: string | null;
  /** The queue the worker consumed it from, or null. */
  consumer: string | null;
}

/** A dead letter's cause, from its reason, error type, error text and source queue. */
export function deadLetterCause(fields: { reason: string; errorType: string; error: string | undefined; sourceQueue: string | undefined }): DeadLetterCause {
  const error = fields.error ?? '';
  return {
    reason: fields.reason,
    errorType: fields.errorType,
    fingerprint: errorFingerprint(error),
    dependency: dependencyOf(error) ?? null,
    consumer: fields.sourceQueue ?? null,
  };
}

/** 8 hex characters, the same for the same cause on every run: what `--group` takes. */
export function causeId(cause: DeadLetterCause): string {
  const key = [cause.reason, cause.errorType, cause.fingerprint, cause.dependency ?? '', cause.consumer ?? ''].join('\u0000');
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}
