import type { DeadLetterReason } from './error-types.js';
import type { RetryState } from './retry-state.js';

/** Send a copy that becomes visible after `delaySeconds`, carrying `state`. */
export interface RetryDecision {
  /** Retry: the next attempt, after the delay. */
  action: 'retry';
  /** The SQS delay, a whole number of seconds from 0 to the hop ceiling. */
  delaySeconds: number;
  /** The state the copy carries: the next attempt, and this failure as the last error. */
  state: RetryState;
  /** The failure's error type. */
  errorType: string;
  /** The failure's text. */
  error: string;
}

/**
 * The wait is longer than one SQS delay allows: send a copy after `delaySeconds`,
 * with `state.notBefore` saying when the handler may run. Hops never count as attempts.
 */
export interface HopDecision {
  /** Wait without running: a long delay's next leg, or a deferral. */
  action: 'hop';
  /** The SQS delay of this leg, in whole seconds. */
  delaySeconds: number;
  /** The state the copy carries, `notBefore` set when the wait goes on past this leg. */
  state: RetryState;
  /** The error type the wait is for. */
  errorType: string;
  /** The text of the failure the wait is for. */
  error: string;
}

/** Send the message to the DLQ with `reason`: the policy will not retry it. */
export interface DeadLetterDecision {
  /** Dead-letter it. */
  action: 'dead-letter';
  /** Why, as `x-dead-letter.reason` records it. */
  reason: DeadLetterReason;
  /** The last failure's error type. */
  errorType: string;
  /** The last failure's text. */
  error: string;
  /** Attempts made, this one included. */
  attempts: number;
}

/** What a policy decides about a failure: retry, wait without an attempt, or dead-letter. */
export type Decision = RetryDecision | HopDecision | DeadLetterDecision;
