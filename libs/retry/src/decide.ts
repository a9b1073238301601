import { applyJitter, decorrelatedDelayMs, strategyDelayMs, type DecorrelatedInput } from './backoff.js';
import { classifyFailure, type Classification, type RetryableFailure } from './classify.js';
import { ErrorType, type DeadLetterReason } from './error-types.js';
import { parsePolicyOverride } from './policy-override.js';
import type { PolicyOverride } from './policy-types.js';
import { resolveBackoff, resolveRetryPolicy, type ErrorTypePolicy, type ResolvedRetryPolicy } from './policy-config.js';
import type { RetryPolicyInput } from './policy-types.js';
import type { DeadLetterDecision, Decision, HopDecision } from './decision.js';
import type { EnginePolicy, RetryPolicy } from './engine-policy.js';
import { quantizeDelaySeconds } from './quantize.js';
import type { Random } from './random.js';
import type { RetryState } from './retry-state.js';

/** Arrivals this close to `notBefore` run now: SQS delays have one-second resolution. */
const NOT_BEFORE_TOLERANCE_MS = 1000;

/**
 * Builds a retry policy from its settings, over the shipped preset, and validates them.
 * Throws `RetryPolicyConfigError`, naming the field, when a setting is out of range.
 *
 * @example
 * ```ts
 * const retryPolicy = createRetryPolicy({
 *   maxAttempts: 8,
 *   types: { RATE_LIMITED: { backoff: { type: 'exponential', baseMs: 2000 }, maxDelayMs: 120_000 } },
 * });
 * new Worker({ queueUrl, deadLetterQueueUrl, handler, retryPolicy }).start();
 * ```
 */
export function createRetryPolicy(input: RetryPolicyInput = {}): RetryPolicy {
  return createEnginePolicy(input);
}

/** @internal `createRetryPolicy` with its decisions in view: for this package's tests and `enginePolicy`'s callers. */
export function createEnginePolicy(input: RetryPolicyInput = {}): EnginePolicy {
  const config = resolveRetryPolicy(input);
  const strategyNames = Object.keys(config.strategies);
  const decideClassified: EnginePolicy['decideClassified'] = (state, failure, now, rng, override) => decideRetry(config, state, failure, now, rng, override);
  return {
    input,
    config,
    decideClassified,
    decide: (state, thrown, now, rng, override) => decideClassified(state, classifyFailure(thrown, now, config.classifier), now, rng, override),
    defer: (state, failure, waitMs, now, override) => deferWithoutAttempt(config, state, failure, waitMs, now, override),
    deferUntilNotBefore: (state, now, rng) => waitOutNotBefore(config, state, now, rng),
    parseOverride: (raw) => parsePolicyOverride(raw, strategyNames),
  };
}

function decideRetry(
  config: ResolvedRetryPolicy,
  state: RetryState,
  failure: Classification,
  now: number,
  rng: Random,
  override: PolicyOverride | undefined,
): Decision {
  const deadLetter = (reason: DeadLetterReason): DeadLetterDecision => ({
    action: 'dead-letter',
    reason,
    errorType: failure.errorType,
    error: failure.message,
    attempts: state.attempt,
  });
  if (!failure.retryable) return deadLetter(failure.reason);

  const limits = limitsFor(config, override);
  if (state.attempt >= limits.maxAttempts) return deadLetter('max-attempts');

  const deadlineAt = deadlineOf(state, limits.deadlineSeconds);
  if (now >= deadlineAt) return deadLetter('deadline-exceeded');

  const typePolicy = policyFor(config, failure.errorType, override);
  const computed = computeDelayMs(typePolicy, state, failure, now, rng);
  if (computed === 'dead-letter') return deadLetter('non-retryable');
  const delayMs = override?.backoff ? Math.max(computed, config.overrideCeilings.minDelayMs) : computed;

  const retryAfterMs = failure.retryAfterMs ?? 0;
  const waitMs = Math.max(delayMs, retryAfterMs);
  const next: RetryState = {
    v: 1,
    attempt: state.attempt + 1,
    firstReceivedAt: state.firstReceivedAt,
    originalMessageId: state.originalMessageId,
    lastErrorType: failure.errorType,
    lastError: failure.message,
  };

  if (waitMs > config.hopCeilingSeconds * 1000) {
    const notBefore = Math.ceil(now + waitMs);
    // A retry that could only start after the deadline is pointless: dead-letter now,
    // while the operator can still act, instead of after a wasted wait.
    if (notBefore > deadlineAt) return deadLetter('deadline-exceeded');
    return { action: 'hop', delaySeconds: config.hopCeilingSeconds, state: { ...next, notBefore }, errorType: failure.errorType, error: failure.message };
  }
  // Randomized rounding may round down; Retry-After is a floor, so it rounds up.
  const delaySeconds = Math.max(quantizeDelaySeconds(waitMs, rng), Math.ceil(retryAfterMs / 1000));
  if (now + delaySeconds * 1000 > deadlineAt) return deadLetter('deadline-exceeded');
  return { action: 'retry', delaySeconds, state: next, errorType: failure.errorType, error: failure.message };
}

function deferWithoutAttempt(
  config: ResolvedRetryPolicy,
  state: RetryState,
  failure: RetryableFailure,
  waitMs: number,
  now: number,
  override: PolicyOverride | undefined,
): HopDecision | DeadLetterDecision {
  const deadlineAt = deadlineOf(state, limitsFor(config, override).deadlineSeconds);
  const wait = Math.max(0, waitMs);
  if (now + wait > deadlineAt) {
    return { action: 'dead-letter', reason: 'deadline-exceeded', errorType: failure.errorType, error: failure.message, attempts: state.attempt };
  }
  const kept: RetryState = { ...state, lastErrorType: failure.errorType, lastError: failure.message };
  delete kept.notBefore;
  if (wait > config.hopCeilingSeconds * 1000) {
    return {
      action: 'hop',
      delaySeconds: config.hopCeilingSeconds,
      state: { ...kept, notBefore: Math.ceil(now + wait) },
      errorType: failure.errorType,
      error: failure.message,
    };
  }
  // The dependency's wait is a floor: round up, never down.
  const delaySeconds = Math.min(config.hopCeilingSeconds, Math.ceil(wait / 1000));
  return { action: 'hop', delaySeconds, state: kept, errorType: failure.errorType, error: failure.message };
}

function waitOutNotBefore(config: ResolvedRetryPolicy, state: RetryState, now: number, rng: Random): HopDecision | undefined {
  if (state.notBefore === undefined || state.notBefore - now < NOT_BEFORE_TOLERANCE_MS) return undefined;
  const remainingMs = Math.min(state.notBefore - now, config.hopCeilingSeconds * 1000);
  return {
    action: 'hop',
    delaySeconds: Math.max(1, Math.min(config.hopCeilingSeconds, quantizeDelaySeconds(remainingMs, rng))),
    state,
    errorType: state.lastErrorType ?? ErrorType.DEFAULT,
    error: state.lastError ?? '',
  };
}

/** The attempts and deadline a message gets: its override's, within the policy's ceilings. */
function limitsFor(config: ResolvedRetryPolicy, override: PolicyOverride | undefined): { maxAttempts: number; deadlineSeconds: number | undefined } {
  const ceilings = config.overrideCeilings;
  const maxAttempts = override?.maxAttempts === undefined ? config.maxAttempts : Math.min(override.maxAttempts, ceilings.maxAttempts);
  const deadlineSeconds =
    override?.deadlineSeconds === undefined ? config.deadlineSeconds : Math.min(override.deadlineSeconds, ceilings.deadlineSeconds ?? Infinity);
  return { maxAttempts, deadlineSeconds };
}

function deadlineOf(state: RetryState, deadlineSeconds: number | undefined): number {
  return deadlineSeconds === undefined ? Infinity : state.firstReceivedAt + deadlineSeconds * 1000;
}

function policyFor(config: ResolvedRetryPolicy, errorType: string, override: PolicyOverride | undefined): ErrorTypePolicy {
  const base = config.types[errorType] ?? config.types[ErrorType.DEFAULT];
  if (!base) throw new Error('resolved retry policy has no DEFAULT type');
  if (!override?.backoff) return base;
  const { maxDelayMs, jitter, ...written } = override.backoff;
  // The name was checked when the override was parsed; an unknown one fails loudly here.
  const backoff = resolveBackoff(written, config.strategies, 'x-retry-policy.backoff.name');
  const exact = backoff.type === 'custom' ? ({ type: 'none' } as const) : base.jitter;
  return { backoff, maxDelayMs: maxDelayMs ?? base.maxDelayMs, jitter: jitter ?? exact };
}

function computeDelayMs(policy: ErrorTypePolicy, state: RetryState, failure: RetryableFailure, now: number, rng: Random): number | 'dead-letter' {
  const { backoff, maxDelayMs: capMs } = policy;
  const attempt = state.attempt;
  const decorrelated = (baseMs: number, multiplier: number): DecorrelatedInput => ({
    baseMs,
    multiplier,
    capMs,
    attempt,
    seedKey: state.originalMessageId,
  });
  switch (backoff.type) {
    case 'decorrelated':
      // Already random at every step; a second jitter on top would only blur it.
      return decorrelatedDelayMs(decorrelated(backoff.baseMs, backoff.multiplier), rng);
    case 'custom': {
      const custom = runCustom(backoff.compute, attempt, failure, { now, firstReceivedAt: state.firstReceivedAt, errorType: failure.errorType }, capMs);
      return custom === 'dead-letter' ? custom : applyJitter(policy.jitter, Math.min(custom, capMs), decorrelated(custom, 3), rng);
    }
    default: {
      const capped = Math.min(strategyDelayMs(backoff, attempt), capMs);
      const firstDelay = Math.min(strategyDelayMs(backoff, 1), capMs);
      return applyJitter(policy.jitter, capped, decorrelated(firstDelay, 3), rng);
    }
  }
}

/**
 * A custom strategy is user code. One that throws or answers nonsense is a policy bug,
 * not a reason to lose or hammer the message: it falls back to the type's maximum delay.
 */
function runCustom(
  compute: Extract<ErrorTypePolicy['backoff'], { type: 'custom' }>['compute'],
  attempt: number,
  failure: RetryableFailure,
  context: { now: number; firstReceivedAt: number; errorType: string },
  capMs: number,
): number | 'dead-letter' {
  let answer: unknown;
  try {
    answer = compute(attempt, failure, context);
  } catch {
    return capMs;
  }
  if (answer === 'dead-letter' || answer === -1) return 'dead-letter';
  if (answer === 'immediate') return 0;
  if (typeof answer === 'number' && Number.isFinite(answer) && answer >= 0) return answer;
  return capMs;
}
