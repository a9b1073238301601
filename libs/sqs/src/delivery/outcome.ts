import type { DeadLetterReason } from '@requeue/retry';
import type { HopDecision, RetryDecision } from '@requeue/retry/engine';
import type { DeferCause } from '../backpressure/admission.js';
import type { MessageAttributes } from '../message/message-attributes.js';

/** A wait before the message runs again: a retry uses an attempt, a deferral does not. */
export type Wait =
  | { kind: 'retry'; decision: RetryDecision | HopDecision }
  /** `ran`: the handler ran and failed, and its dependency's state confirmed the failure is systemic. */
  | { kind: 'deferred'; decision: HopDecision; cause: DeferCause | 'not-before'; ran: boolean };

export interface DeadLetterOutcome {
  kind: 'dead-letter';
  reason: DeadLetterReason;
  errorType: string;
  error: string;
  /** The attempts its record states, when not this delivery's: a dead letter SQS refused, sent on the message's next receive. */
  attempts?: number;
}

/** The original hidden for the wait (the visibility transport); its receive count rises when it returns. */
export interface HideOutcome {
  kind: 'hide';
  wait: Wait;
  seconds: number;
}

/**
 * What the worker does with one delivery: the only thing `OutcomeExecutor` acts on.
 * - `ack`: delete it.
 * - `copy`: send a copy carrying the new retry state after `delaySeconds`, then delete
 *   the original; if the send fails, `ifSendFails` (the visibility transport, or the
 *   DLQ when that would reach the queue's `maxReceiveCount`).
 * - `hide`: the visibility transport.
 * - `dead-letter`: to the DLQ with the reason, then delete it.
 * - `release`: visible again at once; this receive was no attempt.
 * - `hold-back`: hidden for `seconds`, unrun; this receive was no attempt.
 * - `leave`: nothing; it reappears after its visibility timeout. Only for an error the
 *   worker did not expect, which no decision returns.
 */
/** Visible again at once; this receive was no attempt. */
export interface ReleaseOutcome {
  kind: 'release';
}

export type Outcome =
  | { kind: 'ack' }
  | { kind: 'copy'; wait: Wait; attributes: MessageAttributes; ifSendFails: HideOutcome | DeadLetterOutcome }
  | HideOutcome
  | DeadLetterOutcome
  | ReleaseOutcome
  | { kind: 'hold-back'; seconds: number }
  | { kind: 'leave' };

/**
 * FIFO: wait `seconds` in the worker, then run again, the group's later messages held
 * behind it (no SQS call, so no receive count rises). The processor performs it; at
 * shutdown it becomes `ifStopped`, what a longer wait would have been.
 */
export interface InPlaceOutcome {
  kind: 'in-place';
  wait: Wait;
  seconds: number;
  ifStopped: HideOutcome | DeadLetterOutcome;
}

/** The decision before anything ran: go ahead. */
export interface RunOutcome {
  kind: 'run';
}
