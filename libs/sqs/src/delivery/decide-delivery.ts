import { ErrorType } from '@requeue/retry';
import type { DeadLetterDecision, EnginePolicy, HopDecision, Random, RetryDecision, RetryStateSigner } from '@requeue/retry/engine';
import { retryCopyAttributes } from '../message/copies.js';
import type { DecodedMessage } from '../message/decode.js';
import { MAX_VISIBILITY_SECONDS } from './heartbeat.js';
import type { QueueFacts } from '../sqs-io/queue-facts.js';
import type { DeadLetterOutcome, HideOutcome, InPlaceOutcome, Outcome, ReleaseOutcome, RunOutcome, Wait } from './outcome.js';
import type { FinalVerdict, GiveBack, Verdict } from './verdict.js';

/** How long a message waits, invisible and unrun, while the idempotency store is unreachable. */
export const STORE_DOWN_HOLD_SECONDS = 5;

/**
 * A message given back unrun (`GiveBack`): visible again at once, and its receive used no
 * attempt (docs/contracts.md, "Outcomes"). Every give-back goes through here.
 */
export function decideGiveBack(_verdict: GiveBack): ReleaseOutcome {
  return RELEASE;
}

const RELEASE: ReleaseOutcome = { kind: 'release' };

/** Everything the decision reads. It reads nothing else: no clock, no I/O. */
export interface DeliveryFacts<V extends Verdict = Verdict> {
  message: DecodedMessage;
  verdict: V;
  policy: EnginePolicy;
  queue: Pick<QueueFacts, 'fifo' | 'maxReceiveCount' | 'retryInPlaceSeconds' | 'deferInPlaceSeconds' | 'maximumMessageSize'>;
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
      return verdict.invalid
        ? deadLetter('non-retryable', ErrorType.VALIDATION, verdict.error)
        : deadLetter('handler-bug', ErrorType.HANDLER_BUG, verdict.error);
    case 'key-unusable':
      return deadLetter('non-retryable', verdict.errorType, verdict.error);
    case 'gate-stopped':
    case 'stopped':
      return RELEASE;
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

function deferred(
  facts: DeliveryFacts,
  decision: HopDecision | DeadLetterDecision,
  cause: Extract<Wait, { kind: 'deferred' }>['cause'],
  ran: boolean,
): Outcome | InPlaceOutcome {
  if (decision.action === 'dead-letter') return deadLetter(decision.reason, decision.errorType, decision.error);
  return waitOutcome(facts, { kind: 'deferred', decision, cause, ran });
}

/**
 * How a message that ran, or was stopped at its gate, waits. A wait spent in place holds
 * the message (and its slot) in the worker, the heartbeat keeping it invisible: no SQS
 * call, and no receive that would raise its count toward the queue's `maxReceiveCount`.
 * - FIFO: any wait within `retryInPlaceSeconds`, the group held behind it (handing the
 *   group back would raise every held message's receive count).
 * - Standard: a deferral within `deferInPlaceSeconds`, the running slot parked for the
 *   other messages meanwhile; else a copy, whose receive count starts again. A message with no room for
 *   `x-retry` waits in place within `retryInPlaceSeconds`; past it, by visibility, and at
 *   the receive limit a deferral still waits in place (a receive more would hand it to
 *   SQS's redrive without a reason).
 */
function waitOutcome(facts: DeliveryFacts, wait: Wait): Outcome | InPlaceOutcome {
  const { message, queue, now } = facts;
  const seconds = secondsUntilDue(message, wait.decision, now);
  const inPlace = (): InPlaceOutcome => ({ kind: 'in-place', wait, seconds, ifStopped: hideOutcome(facts, wait) });
  // With SQS's 12-hour bound reached, a wait in place would last 0 s and be decided
  // again at once, a spin: the message goes back to SQS, where a new receive starts the bound again.
  const noRoom = seconds === 0 && wantedSeconds(wait.decision, now) > 0;
  // A bound of 0 turns waiting in place off (the Lambda adapter: a wait would be billed time).
  const within = !noRoom && queue.retryInPlaceSeconds > 0 && seconds <= queue.retryInPlaceSeconds;
  if (queue.fifo) return within ? inPlace() : hideOutcome(facts, wait);
  if (!noRoom && wait.kind === 'deferred' && queue.deferInPlaceSeconds > 0 && seconds <= queue.deferInPlaceSeconds) return inPlace();
  const copy = copyOutcome(facts, wait);
  if (copy) return copy;
  const atReceiveLimit = queue.maxReceiveCount !== undefined && message.receiveCount >= queue.maxReceiveCount;
  const keptFromRedrive = !noRoom && wait.kind === 'deferred' && atReceiveLimit && queue.retryInPlaceSeconds > 0;
  return within || keptFromRedrive ? inPlace() : hideOutcome(facts, wait);
}

/** A wait before the message ran (its `notBefore`): a copy where it has room, else the visibility transport. */
function sqsWaitOutcome(facts: DeliveryFacts, wait: Wait): Outcome {
  return (facts.queue.fifo ? undefined : copyOutcome(facts, wait)) ?? hideOutcome(facts, wait);
}

/**
 * A copy with `DelaySeconds` and the new `x-retry`, then the original's delete: the
 * receive count starts again. Undefined when the copy cannot carry the state within the
 * queue's limits (10 attributes, or too near its `MaximumMessageSize`).
 */
function copyOutcome(facts: DeliveryFacts, wait: Wait): Outcome | undefined {
  const { message, queue, signer } = facts;
  const attributes = retryCopyAttributes(message, wait.decision.state, signer, queue.maximumMessageSize);
  return attributes ? { kind: 'copy', wait, attributes, ifSendFails: hideOutcome(facts, wait) } : undefined;
}

/**
 * The visibility transport. Each receive raises ApproximateReceiveCount, which SQS
 * compares with the redrive maxReceiveCount: a message at that count is dead-lettered
 * here, with its reason, rather than moved by SQS without one.
 */
function hideOutcome(facts: DeliveryFacts, wait: Wait): HideOutcome | DeadLetterOutcome {
  const { message, queue } = facts;
  if (queue.maxReceiveCount !== undefined && message.receiveCount >= queue.maxReceiveCount) {
    const error =
      `${wait.decision.error} (received ${message.receiveCount} times, the queue's maxReceiveCount: ` +
      `one more receive would hand it to SQS's redrive without a reason)`;
    return deadLetter('max-attempts', wait.decision.errorType, error);
  }
  return { kind: 'hide', wait, seconds: secondsUntilDue(message, wait.decision, facts.now) };
}

/** The wait the decision asks for, in whole seconds. */
function wantedSeconds(decision: RetryDecision | HopDecision, now: number): number {
  return decision.action === 'hop' && decision.state.notBefore !== undefined ? Math.ceil((decision.state.notBefore - now) / 1000) : decision.delaySeconds;
}

/** The decision's wait, bounded by what SQS allows: 12 hours of invisibility from this receive. */
function secondsUntilDue(message: DecodedMessage, decision: RetryDecision | HopDecision, now: number): number {
  const waitSeconds = wantedSeconds(decision, now);
  // SQS's bound runs from this receive, not the first: a copy or a later receive starts it again.
  const elapsedSeconds = Math.ceil((now - message.receivedAt) / 1000);
  return Math.max(0, Math.min(waitSeconds, MAX_VISIBILITY_SECONDS - elapsedSeconds - 1));
}

function deadLetter(reason: DeadLetterOutcome['reason'], errorType: string, error: string): DeadLetterOutcome {
  return { kind: 'dead-letter', reason, errorType, error };
}
