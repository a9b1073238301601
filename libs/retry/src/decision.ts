import type { DeadLetterReason } from './error-types.js';
import type { RetryState } from './retry-state.js';

/** Send a copy that becomes visible after `delaySeconds`, carrying `state`. */
export interface RetryDecision {
  action: 'retry';
  delaySeconds: number;
  state: RetryState;
  errorType: string;
  error: string;
}

/**
 * The wait is longer than one SQS delay allows: send a copy after `delaySeconds`,
 * with `state.notBefore` saying when the handler may run. Hops never count as attempts.
 */
export interface HopDecision {
  action: 'hop';
  delaySeconds: number;
  state: RetryState;
  errorType: string;
  error: string;
}

export interface DeadLetterDecision {
  action: 'dead-letter';
  reason: DeadLetterReason;
  errorType: string;
  error: string;
  /** Attempts made, this one included. */
  attempts: number;
}

export type Decision = RetryDecision | HopDecision | DeadLetterDecision;
