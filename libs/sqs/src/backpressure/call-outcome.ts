import { ErrorType, type Classification } from '@requeue/retry';
import { failureScope, type RetryState } from '@requeue/retry/engine';
import type { CallOutcome } from './admission.js';

const RATE_LIMIT_TYPES: ReadonlySet<string> = new Set([ErrorType.RATE_LIMIT, ErrorType.QUOTA_EXCEEDED]);

/** What a handler failure says about its dependency; `firstRateLimit`: the message had not been rate-limited before. */
export function callOutcomeOf(failure: Classification, firstRateLimit = true): CallOutcome {
  if (!failure.retryable || failureScope(failure) !== 'systemic') return { kind: 'neutral' };
  if (RATE_LIMIT_TYPES.has(failure.errorType) || failure.retryAfterMs !== undefined) {
    return { kind: 'rate-limited', retryAfterMs: failure.retryAfterMs, firstRateLimit };
  }
  return { kind: 'unavailable' };
}

/**
 * Whether this is the first 429 the message meets: none is recorded on it (a 503 or a
 * timeout before does not matter). One message rejected again and again is one message.
 */
export function isFirstRateLimit(state: Pick<RetryState, 'lastErrorType'>): boolean {
  return state.lastErrorType === undefined || !RATE_LIMIT_TYPES.has(state.lastErrorType);
}

/** Longest dependency key kept: a hostname is at most 253 characters. */
const MAX_KEY_LENGTH = 256;

/**
 * The handler's key for a message, or `fallback` (the queue) when it sets none, throws,
 * or answers something that is not a short non-empty string.
 */
export function dependencyKeyOf<M>(keyOf: ((message: M) => string | undefined) | undefined, message: M, fallback: string): string {
  if (!keyOf) return fallback;
  try {
    const key = keyOf(message);
    return typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH ? key : fallback;
  } catch {
    return fallback;
  }
}
