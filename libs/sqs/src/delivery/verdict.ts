import type { Classification, DeadLetterReason } from '@requeue/retry';
import type { DeferCause } from '../backpressure/admission.js';
import type { Claim } from '../idempotency/guard.js';

/**
 * What is known about one delivery when the worker stops gathering facts: how far the
 * message got (decoded, validated, admitted by its dependency, claimed, run) and why it
 * stopped there. `decideDelivery` turns a verdict into an outcome; nothing else does.
 */
export type Verdict =
  /** Just decoded: the decision says whether it may run now. */
  | { kind: 'received' }
  /** Its retry state, attributes or envelope cannot be trusted or carried. */
  | { kind: 'undecodable'; reason: DeadLetterReason; errorType: string; error: string }
  /** The body schema rejected it (`invalid`), or the validator itself threw. */
  | { kind: 'invalid-body'; invalid: boolean; error: string }
  /** Its dependency's gate closed because the worker is stopping. */
  | { kind: 'gate-stopped' }
  /** Its dependency is paused or its breaker open: it waits, unrun, until `untilMs`. */
  | { kind: 'gate-closed'; untilMs: number; cause: DeferCause; dependency: string }
  /** The idempotency store holds its key as completed: a duplicate. */
  | { kind: 'duplicate' }
  /** Another delivery of its idempotency key is running, until at most `untilMs`. */
  | { kind: 'duplicate-in-progress'; untilMs: number }
  /** Its idempotency key was used before for another payload, or it has none. */
  | { kind: 'key-unusable'; errorType: 'IDEMPOTENCY_KEY_REUSED' | 'IDEMPOTENCY_KEY_MISSING'; error: string }
  /** The idempotency store cannot be reached: the message is not run. */
  | { kind: 'store-unavailable'; error: unknown }
  /** The handler succeeded. */
  | { kind: 'succeeded' }
  /** The handler was aborted because the worker is stopping. */
  | { kind: 'stopped' }
  /**
   * The handler failed. `confirmedUntil` is set when the dependency's state confirms the
   * failure is systemic (paused, paced, or its breaker now open): the message waits that
   * long without using an attempt.
   */
  | { kind: 'failed'; failure: Classification; confirmed?: { untilMs: number; cause: DeferCause; dependency: string } };

/** The verdicts after which the decision is final. */
export type FinalVerdict = Exclude<Verdict, { kind: 'received' }>;

/**
 * Why a message goes back unrun, before it was decoded: it came from a receive under way
 * when shutdown began (`stopping`), it was queued behind its FIFO group's message that
 * stays (`behind-its-group`), or it was waiting for a slot or its dependency when the
 * worker gave its waiting messages back (`waiting`).
 */
export interface GiveBack {
  kind: 'given-back';
  why: 'stopping' | 'behind-its-group' | 'waiting';
}

/** The verdict of a message its idempotency claim keeps from running. */
export function unclaimedVerdict(claim: Exclude<Claim, { kind: 'run' } | { kind: 'unguarded' }>): FinalVerdict {
  switch (claim.kind) {
    case 'completed':
      return { kind: 'duplicate' };
    case 'in-progress':
      return { kind: 'duplicate-in-progress', untilMs: claim.untilMs };
    case 'payload-mismatch':
      return { kind: 'key-unusable', errorType: 'IDEMPOTENCY_KEY_REUSED', error: claim.error };
    case 'no-key':
      return { kind: 'key-unusable', errorType: 'IDEMPOTENCY_KEY_MISSING', error: claim.error };
    case 'store-unavailable':
      return { kind: 'store-unavailable', error: claim.error };
  }
}
