import type { BreakerTicket, CallResult } from './circuit-breaker.js';

/** What a finished call tells the dependency's gate. */
export type CallOutcome =
  | { kind: 'success' }
  /** Unavailable: 503, timeouts, refused connections. Feeds the breaker and the limit. */
  | { kind: 'unavailable' }
  /** 429 or quota: the dependency is up but wants less. Pauses dispatch and feeds the limit. */
  | {
      kind: 'rate-limited';
      retryAfterMs: number | undefined;
      /** The message's first 429 (none recorded on it before): only those count as evidence (see RateLimitEvidence). @default true */
      firstRateLimit?: boolean;
    }
  /** Answered, but says nothing about the dependency's health (a 400, a handler bug). */
  | { kind: 'neutral' };

export interface DependencyTicket {
  startedAt: number;
  breaker: BreakerTicket | undefined;
  /** Whether the call's result joins the breaker's window (see `admit`). */
  sampled: boolean;
}

/** Why a message went back to SQS without using an attempt. */
export type DeferCause = 'breaker-open' | 'rate-limited' | 'duplicate-in-progress';

export type Admission =
  | { kind: 'run'; ticket: DependencyTicket }
  /** Do not run: hand the message back to SQS until `untilMs`. It costs no attempt. */
  | { kind: 'defer'; untilMs: number; cause: DeferCause }
  /** The worker is stopping: release the message untouched. */
  | { kind: 'stopped' };

/** One dependency as the worker sees it: its breaker, its concurrency and its pause. */
export interface DependencySnapshot {
  /** The dependency's key (`dependencyKey`'s answer, by default the queue's name). */
  key: string;
  /** Its breaker's state, or `off` when the dependency has no breaker. */
  breaker: 'closed' | 'open' | 'half-open' | 'off';
  /** The most of its messages allowed to run at once, as adaptive concurrency now sets it. */
  concurrencyLimit: number;
  /** Its messages running now. */
  inFlight: number;
  /** Its messages waiting for a slot. */
  waiting: number;
  /** Epoch ms until which dispatch is paused (rate limit or open breaker), if it is. */
  blockedUntil: number | undefined;
}

/** What a call's outcome tells the breaker. A 429 proves the dependency is up: pace it, but do not cut it off. */
export function breakerResult(outcome: CallOutcome): CallResult {
  if (outcome.kind === 'unavailable') return 'failure';
  return outcome.kind === 'neutral' ? 'neutral' : 'success';
}
