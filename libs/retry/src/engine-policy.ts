import type { Classification, RetryableFailure } from './classify.js';
import type { DeadLetterDecision, Decision, HopDecision } from './decision.js';
import { RetryPolicyConfigError } from './errors.js';
import type { ResolvedRetryPolicy } from './policy-config.js';
import type { PolicyOverride, RetryPolicyInput } from './policy-types.js';
import type { Random } from './random.js';
import type { RetryState } from './retry-state.js';

/**
 * A retry policy: what happens to a message whose handler failed, per error type. Build
 * it with `createRetryPolicy` and give it to the worker (`retryPolicy`); the engine makes
 * its decisions.
 */
export interface RetryPolicy {
  /** The settings it was built from (merged over the shipped preset when it runs). */
  readonly input: RetryPolicyInput;
}

/** What a transport asks a policy; `enginePolicy` gets it from a `RetryPolicy`. */
export interface EnginePolicy extends RetryPolicy {
  /** The policy as it runs: the input merged over the preset, every error type complete. */
  readonly config: ResolvedRetryPolicy;
  /**
   * Given that attempt `state.attempt` failed with `thrown` at `now`: retry when, or
   * dead-letter why. Pure: the clock and the random source are arguments.
   */
  decide(state: RetryState, thrown: unknown, now: number, rng: Random, override?: PolicyOverride): Decision;
  /** Same as `decide`, for a failure that is already classified. */
  decideClassified(state: RetryState, failure: Classification, now: number, rng: Random, override?: PolicyOverride): Decision;
  /**
   * A message that arrives before its `notBefore` goes back for the rest of its wait,
   * with the attempt unchanged. Returns undefined when it may run now.
   */
  deferUntilNotBefore(state: RetryState, now: number, rng: Random): HopDecision | undefined;
  /**
   * A systemic failure (the dependency is down or rate-limiting) defers the message for
   * `waitMs`, which the dependency's state decides, without using an attempt. The
   * deadline still applies: a wait that would end past it dead-letters now.
   */
  defer(state: RetryState, failure: RetryableFailure, waitMs: number, now: number, override?: PolicyOverride): HopDecision | DeadLetterDecision;
  /** Parses a message's `x-retry-policy`, which may name this policy's custom strategies; throws `InvalidRetryStateError`. */
  parseOverride(raw: string): PolicyOverride;
}

/**
 * The policy's decisions, for a transport (the SQS engine). Throws when the
 * policy was not made by `createRetryPolicy`, whose decisions the engine relies on.
 */
export function enginePolicy(policy: RetryPolicy): EnginePolicy {
  const candidate = policy as Partial<EnginePolicy>;
  if (typeof candidate.decideClassified !== 'function' || typeof candidate.defer !== 'function') {
    throw new RetryPolicyConfigError('retryPolicy', 'is not a policy made by createRetryPolicy; build it with createRetryPolicy({ ... })');
  }
  return policy as EnginePolicy;
}
