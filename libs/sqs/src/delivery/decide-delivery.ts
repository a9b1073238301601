import { ErrorType } from '@requeue/retry';
import type { DeadLetterDecision, EnginePolicy, HopDecision, Random, RetryDecision, RetryStateSigner } from '@requeue/retry/engine';
import { retryCopyAttributes } from '../copies.js';
import type { DecodedMessage } from '../decode.js';
import { MAX_VISIBILITY_SECONDS } from '../heartbeat.js';
import type { QueueFacts } from '../queue-facts.js';
import type { DeadLetterOutcome, HideOutcome, InPlaceOutcome, Outcome, RunOutcome, Wait } from './outcome.js';
import type { FinalVerdict, Verdict } from './verdict.js';

/** How long a message waits, invisible and unrun, while the idempotency store is unreachable. */
export const STORE_DOWN_HOLD_SECONDS = 5;

/** Everything the decision reads. It reads nothing else: no clock, no I/O. */
export interface DeliveryFacts<V extends Verdict = Verdict> {
  message: DecodedMessage;
  verdict: V;
  policy: EnginePolicy;
  queue: Pick<QueueFacts, 'fifo' | 'maxReceiveCount' | 'retryInPlaceSeconds'>;
  signer: RetryStateSigner;
  now: number;
  random: Random;
}

/**
 * The one place that decides what happens to a delivery (docs/contracts.md, "Outcomes").
 * Pure: the same facts give the same outcome. Before the message runs (`received`) the
 * answer is `run` or a wait for its `notBefore`; after, one of the outcomes the executor
 * performs.
 */
export function decideDelivery(facts: DeliveryFacts<{ kind: 'received' }>): Outcome | RunOutcome;
export function decideDelivery(facts: DeliveryFacts<FinalVerdict>): Outcome | InPlaceOutcome;
export function decideDelivery(facts: DeliveryFacts): Outcome | InPlaceOutcome | RunOutcome {
  const { verdict, message, policy, now } = facts;
  switch (verdict.kind) {
    case 'received': {
      const early = policy.deferUntilNotBefore(message.state, now, facts.random);
      return early ? sqsWaitOutcome(facts, { kind: 'deferred', decision: early, cause: 'not-before', ran: false }) : { kind: 'run' };
    }
    case 'undecodable':
      return deadLetter(verdict.reason, verdict.errorType, verdict.error);
    case 'invalid-body':
      return verdict.invalid ? deadLetter('non-retryable', ErrorType.VALIDATION, verdict.error) : deadLetter('handler-bug', ErrorType.HANDLER_BUG, verdict.error);
    case 'key-unusable':
      return deadLetter('non-retryable', verdict.errorType, verdict.error);
    case 'gate-stopped':
    case 'stopped':
      return { kind: 'release' };
    case 'store-unavailable':
      return { kind: 'hold-back', seconds: STORE_DOWN_HOLD_SECONDS };
    case 'duplicate':
    case 'succeeded':
      return { kind: 'ack' };
    case 'gate-closed':
      return deferUnrun(facts, verdict.untilMs, verdict.cause, `dependency ${verdict.dependency} is ${verdict.cause}`);
    case 'duplicate-in-progress':
      return deferUnrun(facts, verdict.untilMs, 'duplicate-in-progress', 'another delivery of its idempotency key is running');
    case 'failed':
      return decideFailure(facts, verdict);
  }
}

function decideFailure(facts: DeliveryFacts, verdict: Extract<FinalVerdict, { kind: 'failed' }>): Outcome | InPlaceOutcome {
  const { message, policy, now } = facts;
  const { failure, confirmed } = verdict;
  if (failure.retryable && confirmed) {
    // The dependency's pause is capped; the message's own wait honours its Retry-After in
    // full, and a wait past its deadline dead-letters it.
    const waitMs = Math.max(confirmed.untilMs - now, failure.retryAfterMs ?? 0);
    return deferred(facts, policy.defer(message.state, failure, waitMs, now, message.override), confirmed.cause, true);
  }
  const decision = policy.decideClassified(message.state, failure, now, facts.random, message.override);
  if (decision.action === 'dead-letter') return deadLetter(decision.reason, decision.errorType, decision.error);
  return waitOutcome(facts, { kind: 'retry', decision });
}

/** A message that never ran: back to SQS until `untilMs`, attempt unchanged, its last error kept. */
function deferUnrun(facts: DeliveryFacts, untilMs: number, cause: Extract<Wait, { kind: 'deferred' }>['cause'], why: string): Outcome | InPlaceOutcome {
  const { state } = facts.message;
  const reason = { retryable: true as const, errorType: state.lastErrorType ?? ErrorType.TEMPORARY, message: state.lastError ?? `deferred: ${why}` };
  return deferred(facts, facts.policy.defer(state, reason, untilMs - facts.now, facts.now, facts.message.override), cause, false);
}

function deferred(facts: DeliveryFacts, decision: HopDecision | DeadLetterDecision, cause: Extract<Wait, { kind: 'deferred' }>['cause'], ran: boolean): Outcome | InPlaceOutcome {
  if (decision.action === 'dead-letter') return deadLetter(decision.reason, decision.errorType, decision.error);
  return waitOutcome(facts, { kind: 'deferred', decision, cause, ran });
}

/**
 * How a message that ran, or was stopped at its gate, waits. On a FIFO queue a wait
 * within `retryInPlaceSeconds` is spent in place, its group held: handing the group back
 * would raise every held message's receive count toward the queue's `maxReceiveCount`.
 * In place no receive count rises, so the `maxReceiveCount` rule applies only to what
 * shutdown turns it into.
 */
function waitOutcome(facts: DeliveryFacts, wait: Wait): Outcome | InPlaceOutcome {
  const { message, queue, now } = facts;
  if (queue.fifo && queue.retryInPlaceSeconds > 0) {
    const seconds = secondsUntilDue(message, wait.decision, now);
    if (seconds <= queue.retryInPlaceSeconds) return { kind: 'in-place', wait, seconds, ifStopped: hideOutcome(facts, wait) };
  }
  return sqsWaitOutcome(facts, wait);
}

/**
 * How a message waits in SQS. A copy with `DelaySeconds` and the new `x-retry`, then the
 * original's delete, keeps the receive count clean. The visibility transport (the
 * original hidden for the wait) where a copy cannot work: FIFO queues have no
 * per-message delay and a copy would go to the back of its group; a copy that cannot
 * carry the state within SQS limits; a copy whose send failed.
 */
function sqsWaitOutcome(facts: DeliveryFacts, wait: Wait): Outcome {
  const { message, queue, signer } = facts;
  const attributes = queue.fifo ? undefined : retryCopyAttributes(message, wait.decision.state, signer);
  const hide = hideOutcome(facts, wait);
  return attributes ? { kind: 'copy', wait, attributes, ifSendFails: hide } : hide;
}

/**
 * The visibility transport. Each receive raises ApproximateReceiveCount, which SQS
 * compares with the redrive maxReceiveCount: a message at that count is dead-lettered
 * here, with its reason, rather than moved by SQS without one.
 */
function hideOutcome(facts: DeliveryFacts, wait: Wait): HideOutcome | DeadLetterOutcome {
  const { message, queue } = facts;
  if (queue.maxReceiveCount !== undefined && message.receiveCount >= queue.maxReceiveCount) {
    return deadLetter('max-attempts', wait.decision.errorType, wait.decision.error);
  }
  return { kind: 'hide', wait, seconds: secondsUntilDue(message, wait.decision, facts.now) };
}

/** The decision's wait, bounded by what SQS allows: 12 hours of invisibility from the first receive. */
function secondsUntilDue(message: DecodedMessage, decision: RetryDecision | HopDecision, now: number): number {
  const waitSeconds = decision.action === 'hop' && decision.state.notBefore !== undefined ? Math.ceil((decision.state.notBefore - now) / 1000) : decision.delaySeconds;
  const elapsedSeconds = Math.ceil((now - message.state.firstReceivedAt) / 1000);
  return Math.max(0, Math.min(waitSeconds, MAX_VISIBILITY_SECONDS - elapsedSeconds - 1));
}

function deadLetter(reason: DeadLetterOutcome['reason'], errorType: string, error: string): DeadLetterOutcome {
  return { kind: 'dead-letter', reason, errorType, error };
}
