import { ErrorType } from './error-types.js';
import { NonRetryableError, RetryableError } from './errors.js';
import { redactSecrets } from './redact.js';
import { parseRetryAfter, retryAfterFromHeaders } from './retry-after.js';
import { classNames, describeThrown, isErrorLike, readProperty, readString } from './safe-read.js';

/**
 * Whose fault a retryable failure is. `systemic`: the dependency's (rate limit, quota,
 * unavailable), so it correlates across messages. `message`: this message's alone.
 */
export type FailureScope = 'systemic' | 'message';

/** A failure worth retrying: its `errorType` picks the backoff. */
export interface RetryableFailure {
  /** Retry it. */
  retryable: true;
  /** The error type whose policy applies, e.g. `RATE_LIMIT`, `TEMPORARY`, `DEFAULT`. */
  errorType: string;
  /** What went wrong, scrubbed of secrets and bounded: it becomes `x-retry.lastError`. */
  message: string;
  /** `classifyFailure` always sets it; a rule may leave it out and get `scopeOfErrorType`. */
  scope?: FailureScope;
  /** The dependency asked not to be called before this many milliseconds. */
  retryAfterMs?: number;
}

/** A failure that retrying cannot fix: the message goes to the DLQ with `reason`. */
export interface NonRetryableFailure {
  /** Do not retry it. */
  retryable: false;
  /**
   * `handler-bug` for a bug in the handler's code (or a thrown non-`Error`), else `non-retryable`.
   */
  reason: 'non-retryable' | 'handler-bug';
  /** Recorded in `x-dead-letter.errorType`, e.g. `HTTP_4XX`, `VALIDATION`, `HANDLER_BUG`. */
  errorType: string;
  /** What went wrong, scrubbed of secrets and bounded: it becomes `x-dead-letter.error`. */
  message: string;
}

/**
 * What a thrown value means for its message: retry it, of an error type, or dead-letter it, with a
 * reason.
 */
export type Classification = RetryableFailure | NonRetryableFailure;

/** A user rule: return a classification to decide, or undefined to pass. */
export type ClassifierRule = (thrown: unknown, now: number) => Classification | undefined;

/**
 * How `classifyFailure` reads what a handler throws, besides its built-in rules (docs/retry-
 * policy.md, Classification).
 */
export interface ClassifierOptions {
  /** Consulted first, in order; the first defined answer wins. A rule that throws is skipped. */
  rules?: readonly ClassifierRule[];
  /** HTTP status to error type, for statuses worth retrying. Merged over the defaults. */
  retryableStatuses?: Readonly<Record<number, string>>;
  /** HTTP statuses never worth retrying. Replaces the default list. */
  nonRetryableStatuses?: readonly number[];
  /**
   * Error classes that mean a bug in the handler's own code: dead-lettered `handler-bug`
   * on the same delivery, unless a network failure stands behind them (see
   * `DEFAULT_CODE_BUG_ERRORS`). Names match the class or any ancestor, so a subclass of
   * `TypeError` counts. `false` retries them like any unknown error.
   * @default DEFAULT_CODE_BUG_ERRORS
   */
  codeBugErrors?: readonly string[] | false;
}

/**
 * JavaScript's own errors for code that cannot work: retrying the same code on the same
 * input fails the same way, so a day of retries only hides the bug. Node's `fetch`
 * reports a network failure as `TypeError('fetch failed')` with the network error as its
 * `cause`: that one is transient, and the cause chain is read before this list.
 */
export const DEFAULT_CODE_BUG_ERRORS: readonly string[] = ['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError', 'URIError', 'EvalError'];

/** undici's message for every failed `fetch`; the reason is in `cause`, when it has one. */
const FETCH_FAILED = 'fetch failed';

/** Longest error text kept: `x-retry.lastError` is bounded to 256 characters by contract. */
export const MAX_ERROR_TEXT = 256;

const DEFAULT_RETRYABLE_STATUSES: Readonly<Record<number, string>> = {
  408: ErrorType.TEMPORARY,
  425: ErrorType.TEMPORARY,
  429: ErrorType.RATE_LIMIT,
  500: ErrorType.TEMPORARY,
  502: ErrorType.TEMPORARY,
  503: ErrorType.TEMPORARY,
  504: ErrorType.TEMPORARY,
};

const DEFAULT_NON_RETRYABLE_STATUSES: readonly number[] = [400, 401, 403, 404, 409, 410, 422];

// Error names the AWS SDK and AWS services use for throttling (smithy's THROTTLING_ERROR_CODES).
const THROTTLING_NAMES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

// Connection and name-resolution failures: the dependency or the path to it, not the message.
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

// Last resort, after every structured signal. Retryable patterns are tried first so
// that "429 Too Many Requests" is a rate limit, not a 4xx.
const TEXT_RULES: ReadonlyArray<[RegExp, Classification['retryable'], string]> = [
  [/rate.?limit|too many requests|\b429\b|throttl/i, true, ErrorType.RATE_LIMIT],
  [/quota/i, true, ErrorType.QUOTA_EXCEEDED],
  [/time.?out|timed out|temporar|unavailable|\b50[234]\b/i, true, ErrorType.TEMPORARY],
  [/validation|not found|unauthori[sz]ed|forbidden|\b4\d\d\b/i, false, ErrorType.PERMANENT],
];

const MAX_CAUSE_DEPTH = 5;

const SYSTEMIC_ERROR_TYPES: ReadonlySet<string> = new Set([ErrorType.RATE_LIMIT, ErrorType.QUOTA_EXCEEDED, ErrorType.TEMPORARY]);

/** Rate limits, quotas and unavailability are the dependency's; anything else is the message's. */
export function scopeOfErrorType(errorType: string): FailureScope {
  return SYSTEMIC_ERROR_TYPES.has(errorType) ? 'systemic' : 'message';
}

/** The failure's scope: its own when it names one, else its error type's. */
export function failureScope(failure: RetryableFailure): FailureScope {
  return failure.scope ?? scopeOfErrorType(failure.errorType);
}

interface StatusTables {
  retryable: Readonly<Record<number, string>>;
  nonRetryable: readonly number[];
}

/**
 * Maps any thrown value to a retry class. Total: it never throws, whatever it is given,
 * including objects with throwing getters.
 */
export function classifyFailure(thrown: unknown, now: number, options: ClassifierOptions = {}): Classification {
  const classification = classifyUnscoped(thrown, now, options);
  return classification.retryable ? { ...classification, scope: failureScope(classification) } : classification;
}

function classifyUnscoped(thrown: unknown, now: number, options: ClassifierOptions): Classification {
  for (const rule of options.rules ?? []) {
    try {
      const decided = rule(thrown, now);
      if (decided) return decided;
    } catch {
      // A broken user rule must not turn a handler failure into a worker crash.
    }
  }
  const message = redactSecrets(describeThrown(thrown)).slice(0, MAX_ERROR_TEXT);
  if (!isErrorLike(thrown)) {
    return {
      retryable: false,
      reason: 'handler-bug',
      errorType: ErrorType.HANDLER_BUG,
      message: `handler threw a non-Error value: ${message}`.slice(0, MAX_ERROR_TEXT),
    };
  }
  if (RetryableError.is(thrown)) {
    const failure: RetryableFailure = { retryable: true, errorType: thrown.errorType, message, ...(thrown.scope ? { scope: thrown.scope } : {}) };
    return withRetryAfter(failure, thrown.retryAfterMs ?? retryAfterOf(thrown, now));
  }
  if (NonRetryableError.is(thrown) || classNames(thrown).includes('UnrecoverableError')) {
    return { retryable: false, reason: 'non-retryable', errorType: readString(thrown, 'errorType') ?? ErrorType.PERMANENT, message };
  }
  const statuses = statusTables(options);
  let link: unknown = thrown;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof link === 'object' && link !== null; depth++) {
    const decided = classifyStructured(link, message, now, statuses);
    if (decided) return decided;
    link = readProperty(link, 'cause');
  }
  if (message === FETCH_FAILED) return { retryable: true, errorType: ErrorType.TEMPORARY, message };
  const bug = codeBugClass(thrown, options.codeBugErrors ?? DEFAULT_CODE_BUG_ERRORS);
  if (bug) {
    return { retryable: false, reason: 'handler-bug', errorType: ErrorType.HANDLER_BUG, message: `${bug} in the handler: ${message}`.slice(0, MAX_ERROR_TEXT) };
  }
  for (const [pattern, retryable, errorType] of TEXT_RULES) {
    if (pattern.test(message)) {
      return retryable ? { retryable: true, errorType, message } : { retryable: false, reason: 'non-retryable', errorType, message };
    }
  }
  return { retryable: true, errorType: ErrorType.DEFAULT, message };
}

function classifyStructured(error: object, message: string, now: number, statuses: StatusTables): Classification | undefined {
  // AWS SDK errors: checked before the HTTP status, since throttling arrives as a 400.
  const sdkRetryable = readProperty(error, '$retryable');
  const name = readString(error, 'name') ?? '';
  if (THROTTLING_NAMES.has(name) || (sdkRetryable && readProperty(sdkRetryable, 'throttling') === true)) {
    return withRetryAfter({ retryable: true, errorType: ErrorType.RATE_LIMIT, message }, retryAfterOf(error, now));
  }
  if (sdkRetryable) return { retryable: true, errorType: ErrorType.TEMPORARY, message };

  const code = readString(error, 'code');
  if (code && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'))) {
    return { retryable: true, errorType: ErrorType.TEMPORARY, message };
  }
  if (name === 'AbortError' || name === 'TimeoutError') {
    return { retryable: true, errorType: ErrorType.TEMPORARY, message };
  }

  const status = httpStatusOf(error);
  if (status === undefined) return undefined;
  const retryableType = statuses.retryable[status];
  if (retryableType) {
    return withRetryAfter({ retryable: true, errorType: retryableType, message }, retryAfterOf(error, now));
  }
  // Unlisted 4xx are client errors too: retrying the same request cannot fix them.
  if (statuses.nonRetryable.includes(status) || (status >= 400 && status < 500)) {
    return { retryable: false, reason: 'non-retryable', errorType: ErrorType.PERMANENT, message };
  }
  if (status >= 500) return { retryable: true, errorType: ErrorType.DEFAULT, message };
  return undefined;
}

/** The bug class `thrown` is an instance of, by its own or an ancestor's name, if any. */
function codeBugClass(thrown: unknown, names: readonly string[] | false): string | undefined {
  if (names === false || names.length === 0) return undefined;
  return classNames(thrown).find((name) => names.includes(name));
}

const DEFAULT_STATUS_TABLES: StatusTables = { retryable: DEFAULT_RETRYABLE_STATUSES, nonRetryable: DEFAULT_NON_RETRYABLE_STATUSES };
/** Built once per options object: a worker classifies every failure with the same one. */
const builtTables = new WeakMap<ClassifierOptions, StatusTables>();

/** What the user configures wins over the defaults, in both directions. */
function statusTables(options: ClassifierOptions): StatusTables {
  if (options.nonRetryableStatuses === undefined && options.retryableStatuses === undefined) return DEFAULT_STATUS_TABLES;
  let tables = builtTables.get(options);
  if (tables === undefined) {
    tables = buildStatusTables(options);
    builtTables.set(options, tables);
  }
  return tables;
}

function buildStatusTables(options: ClassifierOptions): StatusTables {
  const userNonRetryable = options.nonRetryableStatuses;
  const retryable: Record<number, string> = { ...DEFAULT_RETRYABLE_STATUSES };
  for (const status of userNonRetryable ?? []) delete retryable[status];
  Object.assign(retryable, options.retryableStatuses);
  const nonRetryable = (userNonRetryable ?? DEFAULT_NON_RETRYABLE_STATUSES).filter((status) => !(status in retryable));
  return { retryable, nonRetryable };
}

function httpStatusOf(error: object): number | undefined {
  const candidates = [
    readProperty(error, 'status'),
    readProperty(error, 'statusCode'),
    readProperty(readProperty(error, '$metadata'), 'httpStatusCode'),
    readProperty(readProperty(error, 'response'), 'status'),
  ];
  for (const candidate of candidates) {
    const status = typeof candidate === 'string' && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate;
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) return status;
  }
  return undefined;
}

function retryAfterOf(error: object, now: number): number | undefined {
  const explicit = readProperty(error, 'retryAfterMs');
  if (typeof explicit === 'number' && Number.isFinite(explicit) && explicit >= 0) return explicit;
  return (
    parseRetryAfter(readProperty(error, 'retryAfter'), now) ??
    retryAfterFromHeaders(readProperty(error, 'headers'), now) ??
    retryAfterFromHeaders(readProperty(readProperty(error, 'response'), 'headers'), now) ??
    retryAfterFromHeaders(readProperty(readProperty(error, '$response'), 'headers'), now)
  );
}

function withRetryAfter(failure: RetryableFailure, retryAfterMs: number | undefined): RetryableFailure {
  return retryAfterMs === undefined ? failure : { ...failure, retryAfterMs };
}
