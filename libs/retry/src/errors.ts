import { redactSecrets } from './redact.js';
const RETRYABLE = Symbol.for('requeue.RetryableError');
const NON_RETRYABLE = Symbol.for('requeue.NonRetryableError');

/** Brands survive duplicate copies of this package, where `instanceof` does not. */
function hasBrand(value: unknown, brand: symbol): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return (value as Record<symbol, unknown>)[brand] === true;
  } catch {
    return false;
  }
}

/** What a `RetryableError` says about its failure. */
export interface RetryableErrorOptions {
  /** Selects the backoff policy, e.g. `RATE_LIMIT`. Defaults to `DEFAULT`. */
  errorType?: string;
  /** The earliest the dependency wants to be called again, e.g. from `Retry-After`. */
  retryAfterMs?: number;
  /** Whose fault it is. @default derived from `errorType`: RATE_LIMIT, QUOTA_EXCEEDED and TEMPORARY are `systemic` */
  scope?: 'systemic' | 'message';
  /** The error behind this one, kept as `cause`. */
  cause?: unknown;
}

/**
 * A setting that is missing or out of range, found before anything runs: `setting` names
 * it (an option, an environment variable, a policy path or a construct prop) and `problem`
 * says what is wrong and what would be right. Every package's configuration error is one.
 */
export class ConfigError extends Error {
  /** What is wrong, with any secret the offending value carried (a URL's password, a token) redacted. */
  readonly problem: string;

  constructor(
    /** The setting at fault: an option, an environment variable, a policy path or a construct prop. */
    readonly setting: string,
    problem: string,
    options?: { cause?: unknown },
    message = `${setting}: ${problem}`,
  ) {
    // A config error is printed and logged as it is: it echoes the bad value, so it goes
    // through the same scrubbing as error text in logs.
    super(redactSecrets(message), options);
    this.problem = redactSecrets(problem);
    this.name = 'ConfigError';
  }
}

/**
 * Throw this from a handler to say "try again later". The `errorType` picks the backoff
 * policy; `retryAfterMs` is a floor on the delay.
 */
export class RetryableError extends Error {
  /** The error type whose backoff applies. */
  readonly errorType: string;
  /** The least delay before the next attempt, when the dependency asked for one. */
  readonly retryAfterMs: number | undefined;
  /** Whose fault it is, when the thrower said; else it follows from `errorType`. */
  readonly scope: 'systemic' | 'message' | undefined;
  /** The brand `RetryableError.is` checks. */
  readonly [RETRYABLE] = true;

  constructor(message: string, options: RetryableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableError';
    this.errorType = options.errorType ?? 'DEFAULT';
    this.retryAfterMs = options.retryAfterMs;
    this.scope = options.scope;
  }

  /** True for any `RetryableError`, even one from another copy of this package. */
  static is(value: unknown): value is RetryableError {
    return hasBrand(value, RETRYABLE);
  }
}

/** What a `NonRetryableError` says about its failure. */
export interface NonRetryableErrorOptions {
  /** Recorded in `x-dead-letter.errorType`. Defaults to `PERMANENT`. */
  errorType?: string;
  /** The error behind this one, kept as `cause`. */
  cause?: unknown;
}

/** Throw this from a handler to send the message to the DLQ on this attempt. */
export class NonRetryableError extends Error {
  /** Recorded in `x-dead-letter.errorType`. */
  readonly errorType: string;
  /** The brand `NonRetryableError.is` checks. */
  readonly [NON_RETRYABLE] = true;

  constructor(message: string, options: NonRetryableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NonRetryableError';
    this.errorType = options.errorType ?? 'PERMANENT';
  }

  /** True for any `NonRetryableError`, even one from another copy of this package. */
  static is(value: unknown): value is NonRetryableError {
    return hasBrand(value, NON_RETRYABLE);
  }
}

/**
 * BullMQ and ChasquiMQ users know this name: any error whose class, or any ancestor
 * class, is named `UnrecoverableError` skips the retry budget.
 */
export class UnrecoverableError extends NonRetryableError {
  constructor(message: string, options: NonRetryableErrorOptions = {}) {
    super(message, options);
    this.name = 'UnrecoverableError';
  }
}

/** Which header of the message held the bad value. */
export type RetryAttribute = 'x-retry' | 'x-retry-policy' | 'x-dead-letter';

/**
 * A retry-state attribute that does not parse or is out of range. The worker
 * dead-letters such a message with reason `invalid-retry-state` rather than guess.
 */
export class InvalidRetryStateError extends Error {
  constructor(
    /** The attribute that held the bad value. */
    readonly attribute: 'x-retry' | 'x-retry-policy' | 'x-dead-letter',
    /** What is wrong with it. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${attribute} is invalid: ${problem}. The message cannot be retried safely; ` +
        `inspect it in the DLQ and replay it with --reset-attempts if the body is sound.`,
      options,
    );
    this.name = 'InvalidRetryStateError';
  }
}

/** A retry policy configuration (RETRY_POLICY or code) that is not valid. */
export class RetryPolicyConfigError extends ConfigError {
  constructor(
    /** Dotted path to the offending setting, e.g. `types.RATE_LIMIT.maxDelayMs`. */
    readonly path: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(path || '(root)', problem, options, `retry policy ${path || '(root)'}: ${problem}`);
    this.name = 'RetryPolicyConfigError';
  }
}
