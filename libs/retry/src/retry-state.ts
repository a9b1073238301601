import { z } from 'zod';
import { Bounds } from './bounds.js';
import { MAX_ERROR_TEXT } from './classify.js';
import { InvalidRetryStateError } from './errors.js';
import { parseAttributeJson } from './attribute-json.js';

/** The `x-retry` message attribute: where a message is in its retry life. Version 1. */
export interface RetryState {
  /** The format's version. */
  v: 1;
  /** The attempt this delivery is. A message without `x-retry` is attempt 1. */
  attempt: number;
  /** Epoch ms of the first receive; deadlines count from here. */
  firstReceivedAt: number;
  /** The id of the very first message: the idempotency key, stable across retries. */
  originalMessageId: string;
  /** The error type of the last failure. */
  lastErrorType?: string;
  /** The last failure's text, scrubbed of secrets, at most 256 characters. */
  lastError?: string;
  /** Epoch ms before which the handler must not run: the remainder of a long delay. */
  notBefore?: number;
  /** The worker's HMAC over the other fields (see `RetryStateSigner`); absent on a publisher's. */
  mac?: string;
}

/** The attribute that carries `RetryState` on a retry copy (docs/contracts.md, section 3). */
export const RETRY_STATE_ATTRIBUTE = 'x-retry';

/** Longer than any state we write (a 256-character error, escaped); a 10 KB header is forged. */
export const MAX_RETRY_STATE_CHARS = 2048;

/** Clocks drift between hosts; a first-receive this far in the future is forged, not skew. */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** Nothing can have been received before the project existed: catches 0 and small garbage. */
const EARLIEST_PLAUSIBLE_MS = Date.UTC(2020, 0, 1);
const MAX_NOT_BEFORE_AHEAD_MS = Bounds.maxDeadlineSeconds * 1000;
/** HMAC-SHA256 in base64url: 43 characters. */
const MAC_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What a parsed `x-retry` must be: the rules `parseRetryState` applies, exported for its tests. */
export const retryStateSchema = z.strictObject({
  v: z.literal(1),
  attempt: z.number().int().min(1).max(Bounds.maxRecordedAttempt),
  firstReceivedAt: z.number().int().min(EARLIEST_PLAUSIBLE_MS),
  originalMessageId: z.string().min(1).max(128),
  lastErrorType: z.string().max(64).optional(),
  lastError: z.string().max(MAX_ERROR_TEXT).optional(),
  notBefore: z.number().int().min(EARLIEST_PLAUSIBLE_MS).optional(),
  mac: z.string().regex(MAC_PATTERN).optional(),
});

const STATE_FIELDS: ReadonlySet<string> = new Set(Object.keys(retryStateSchema.shape));

const isIntAtLeast = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min;
const isShortString = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;

/**
 * `retryStateSchema`'s rules by hand, never looser: every state a worker writes passes here, so
 * a retried delivery costs no schema run (the run was a tenth of the retry path's CPU in
 * the engine-alone bench). What this rejects goes to the schema, for its error.
 */
function isWellFormedState(value: unknown): value is RetryState {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const state = value as Record<string, unknown>;
  for (const field in state) if (!STATE_FIELDS.has(field)) return false;
  const { attempt, originalMessageId, lastErrorType, lastError, notBefore, mac } = state;
  return (
    state.v === 1 &&
    isIntAtLeast(attempt, 1) &&
    attempt <= Bounds.maxRecordedAttempt &&
    isIntAtLeast(state.firstReceivedAt, EARLIEST_PLAUSIBLE_MS) &&
    isShortString(originalMessageId, 128) &&
    originalMessageId.length > 0 &&
    (lastErrorType === undefined || isShortString(lastErrorType, 64)) &&
    (lastError === undefined || isShortString(lastError, MAX_ERROR_TEXT)) &&
    (notBefore === undefined || isIntAtLeast(notBefore, EARLIEST_PLAUSIBLE_MS)) &&
    (mac === undefined || (typeof mac === 'string' && MAC_PATTERN.test(mac)))
  );
}

/** The state of a message that has never failed. */
export function freshRetryState(originalMessageId: string, firstReceivedAt: number): RetryState {
  return { v: 1, attempt: 1, firstReceivedAt, originalMessageId };
}

/** Serializes with a fixed key order and no undefined fields, so equal states are equal strings. */
export function encodeRetryState(state: RetryState): string {
  const ordered: RetryState = { v: 1, attempt: state.attempt, firstReceivedAt: state.firstReceivedAt, originalMessageId: state.originalMessageId };
  if (state.lastErrorType !== undefined) ordered.lastErrorType = state.lastErrorType;
  if (state.lastError !== undefined) ordered.lastError = state.lastError.slice(0, MAX_ERROR_TEXT);
  if (state.notBefore !== undefined) ordered.notBefore = state.notBefore;
  if (state.mac !== undefined) ordered.mac = state.mac;
  return JSON.stringify(ordered);
}

/**
 * Strict parser for `x-retry`. Anything that is not a state this worker could have
 * written (wrong version, unknown fields, out-of-range numbers, a first receive in the
 * future) throws `InvalidRetryStateError`, and nothing else.
 */
export function parseRetryState(raw: string, now: number): RetryState {
  if (raw.length > MAX_RETRY_STATE_CHARS) {
    throw new InvalidRetryStateError('x-retry', `${raw.length} characters is longer than the ${MAX_RETRY_STATE_CHARS} allowed`);
  }
  const state: RetryState = parseAttributeJson(retryStateSchema, raw, 'x-retry', isWellFormedState);
  if (state.firstReceivedAt > now + MAX_CLOCK_SKEW_MS) {
    throw new InvalidRetryStateError('x-retry', `firstReceivedAt ${state.firstReceivedAt} is in the future`);
  }
  if (state.notBefore !== undefined && (state.notBefore < state.firstReceivedAt || state.notBefore > now + MAX_NOT_BEFORE_AHEAD_MS)) {
    throw new InvalidRetryStateError('x-retry', `notBefore ${state.notBefore} is out of range`);
  }
  return state;
}
