import type { ClassifierOptions, RetryableFailure } from './classify.js';

/** What a custom backoff receives besides the attempt number and the failure. */
export interface CustomBackoffContext {
  /** Epoch ms of the decision. */
  now: number;
  /** Epoch ms of the message's first receive: its deadline counts from here. */
  firstReceivedAt: number;
  /** The failure's error type. */
  errorType: string;
}

/**
 * A custom strategy returns milliseconds to wait, `"immediate"` (or 0) to retry at once,
 * or `"dead-letter"` (or -1) to stop retrying: BullMQ's 0 and -1, spelled out.
 */
export type CustomBackoff = (attempt: number, failure: RetryableFailure, context: CustomBackoffContext) => number | 'immediate' | 'dead-letter';

/**
 * The strategies JSON can hold (RETRY_POLICY and the `x-retry-policy` attribute):
 * - `fixed`: the same `delayMs` every time.
 * - `linear`: `baseMs + (attempt - 1) × incrementMs`; the increment defaults to the base.
 * - `exponential`: `baseMs × multiplier^(attempt - 1)`; the multiplier defaults to 3.
 * - `decorrelated`: AWS's decorrelated jitter, random between `baseMs` and `multiplier ×`
 *   the previous delay.
 * - `custom` with a `name`: a strategy registered in `strategies`.
 *
 * @example
 * ```json
 * { "type": "exponential", "baseMs": 1000, "multiplier": 2 }
 * ```
 */
export type JsonBackoff =
  | { type: 'fixed'; delayMs: number }
  | { type: 'linear'; baseMs: number; incrementMs?: number | undefined }
  | { type: 'exponential'; baseMs: number; multiplier?: number | undefined }
  | { type: 'decorrelated'; baseMs: number; multiplier?: number | undefined }
  | { type: 'custom'; name: string };
/** A strategy as written in code: JSON's, or a custom function. */
export type BackoffInput = JsonBackoff | { type: 'custom'; compute: CustomBackoff };
/** A custom strategy given as a function. */
export type CustomFunctionBackoff = Extract<BackoffInput, { compute: CustomBackoff }>;
/** A custom strategy registered by name. */
export type NamedCustomBackoff = Extract<JsonBackoff, { type: 'custom' }>;
/** A built-in strategy once parsed: its defaults filled in. */
export type ParsedBuiltInBackoff =
  | Extract<JsonBackoff, { type: 'fixed' }>
  | Extract<JsonBackoff, { type: 'linear' }>
  | (Extract<JsonBackoff, { type: 'exponential' }> & { multiplier: number })
  | (Extract<JsonBackoff, { type: 'decorrelated' }> & { multiplier: number });
/** A strategy as the policy runs it: a named custom strategy is resolved to its function. */
export type Backoff = ParsedBuiltInBackoff | CustomFunctionBackoff;

/**
 * How a delay is spread, so that retries of a burst do not arrive together: `none`,
 * `full` (0 to the delay), `equal` (half fixed, half random), `decorrelated`,
 * `proportional` (± `fraction` of the delay) or `symmetric` (± `ms`). A name alone is
 * shorthand for the jitters that take no parameter: `"full"` is `{ "type": "full" }`.
 */
export type JitterInput =
  | 'none'
  | 'full'
  | 'equal'
  | 'decorrelated'
  | { type: 'none' }
  | { type: 'full' }
  | { type: 'equal' }
  | { type: 'decorrelated' }
  | { type: 'proportional'; fraction: number }
  | { type: 'symmetric'; ms: number };
/** A jitter once parsed: always the object form. */
export type Jitter = Exclude<JitterInput, string>;

/** One error type's policy as written; unset fields fall back to the policy's. */
export interface ErrorTypePolicyInput<B> {
  /** How the delay grows with the attempt. */
  backoff?: B | undefined;
  /** The longest delay for this type, before jitter. @default the policy's `maxDelayMs` */
  maxDelayMs?: number | undefined;
  /** How the delay is spread. @default the policy's `jitter` */
  jitter?: JitterInput | undefined;
}

/** The fields of a retry policy as written, with the strategies `B` may name. */
export interface RetryPolicyFields<B> {
  /**
   * Attempts in all, the first included; the last failure is dead-lettered `max-attempts`. @default
   * 20
   */
  maxAttempts?: number | undefined;
  /** null turns the shipped deadline off. */
  deadlineSeconds?: number | null | undefined;
  /** Cap for error types that do not set their own `maxDelayMs`. A type's own maximum wins. */
  maxDelayMs?: number | undefined;
  /** Jitter for error types that do not set their own. */
  jitter?: JitterInput | undefined;
  /** Longest single SQS delay; longer waits hop. Only tests need less than 900. */
  hopCeilingSeconds?: number | undefined;
  /**
   * Per error type (`RATE_LIMIT`, `TEMPORARY`, `DEFAULT` or your own): its backoff, cap and jitter,
   * merged over the preset's.
   */
  types?: Record<string, ErrorTypePolicyInput<B>> | undefined;
  /**
   * What a message's `x-retry-policy` may ask for: at most these attempts and this
   * deadline, and no retry sooner than `minDelayMs`. A publisher may lower the budget,
   * never raise it past these. @default the policy's own maxAttempts and deadline, 1 s
   */
  overrideCeilings?: { maxAttempts?: number | undefined; deadlineSeconds?: number | undefined; minDelayMs?: number | undefined } | undefined;
  /** Error classes that mean a bug in the handler (`ClassifierOptions.codeBugErrors`); false retries them. */
  codeBugErrors?: false | string[] | undefined;
}

/** A retry policy as written in RETRY_POLICY: every field optional, merged over the preset. */
export type RetryPolicyJson = RetryPolicyFields<JsonBackoff>;

/**
 * A retry policy as written in code: RETRY_POLICY's fields, custom strategies and
 * classifier rules. `strategies` registers custom strategies by name, so RETRY_POLICY and
 * a message's `x-retry-policy` can choose one: `{ "type": "custom", "name": "…" }`.
 */
export type RetryPolicyInput = RetryPolicyFields<BackoffInput> & {
  classifier?: ClassifierOptions;
  strategies?: Readonly<Record<string, CustomBackoff>>;
};

/** The `x-retry-policy` attribute a publisher may set: per-message limits and backoff. */
export interface PolicyOverride {
  /** At most this many attempts, within the policy's `overrideCeilings`. */
  maxAttempts?: number | undefined;
  /** A deadline in seconds from the first receive, within the policy's `overrideCeilings`. */
  deadlineSeconds?: number | undefined;
  /** Replaces the backoff of every error type for this message. */
  backoff?: ((ParsedBuiltInBackoff | NamedCustomBackoff) & { maxDelayMs?: number | undefined; jitter?: Jitter | undefined }) | undefined;
}

/** What a publisher writes in `x-retry-policy`: `PolicyOverride` before parsing, defaults unfilled. */
export interface PolicyOverrideInput {
  /** At most this many attempts for this message (never more than the policy allows). */
  maxAttempts?: number | undefined;
  /**
   * Seconds from the first receive after which this message is dead-lettered `deadline-exceeded`.
   */
  deadlineSeconds?: number | undefined;
  /**
   * Replaces the backoff of every error type for this message, optionally with its own cap and
   * jitter.
   */
  backoff?: (JsonBackoff & { maxDelayMs?: number | undefined; jitter?: JitterInput | undefined }) | undefined;
}
