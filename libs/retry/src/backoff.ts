import type { Backoff, Jitter } from './policy-types.js';
import { hashToSeed, seededRandom, type Random } from './random.js';

/**
 * The un-jittered delay before the retry that follows failed attempt `attempt` (1-based),
 * for the deterministic strategies. The first retry waits the base delay.
 */
export function strategyDelayMs(backoff: Exclude<Backoff, { type: 'custom' } | { type: 'decorrelated' }>, attempt: number): number {
  switch (backoff.type) {
    case 'fixed':
      return backoff.delayMs;
    case 'linear':
      return backoff.baseMs + (backoff.incrementMs ?? backoff.baseMs) * (attempt - 1);
    case 'exponential':
      // Uncapped here: the type's cap is applied after, with the other strategies'.
      return cappedExponentialMs(backoff.baseMs, backoff.multiplier, attempt - 1, Infinity);
  }
}

/**
 * `baseMs × multiplier^step`, at most `capMs`: the one capped exponential requeue's
 * backoffs use (retries, failed receives, rate-limit pauses, breaker cool-downs, publish
 * retries). An absurd step overflows to the cap, never to NaN.
 */
export function cappedExponentialMs(baseMs: number, multiplier: number, step: number, capMs: number): number {
  if (baseMs === 0) return 0;
  return Math.min(capMs, baseMs * Math.pow(multiplier, Math.max(0, step)));
}

export interface DecorrelatedInput {
  baseMs: number;
  multiplier: number;
  capMs: number;
  attempt: number;
  /** Stable per message, so the earlier draws of the sequence can be replayed without state. */
  seedKey: string;
}

/**
 * AWS "decorrelated jitter": s(n) = min(cap, uniform(base, multiplier * s(n-1))), s(0) = base.
 * Each step depends on the previous sleep, which the message does not carry; the earlier
 * steps are replayed from a generator seeded by the message id, and only the last draw
 * uses the injected random source.
 */
export function decorrelatedDelayMs(input: DecorrelatedInput, rng: Random): number {
  const { baseMs, multiplier, capMs, attempt } = input;
  const replay = seededRandom(hashToSeed(input.seedKey));
  const step = (previous: number, u: number) => Math.min(capMs, baseMs + u * (multiplier * previous - baseMs));
  let previous = Math.min(baseMs, capMs);
  for (let n = 1; n < attempt; n++) previous = step(previous, replay());
  return step(previous, rng());
}

/**
 * Applies jitter to a delay that is already capped. Jitter after the cap is what keeps
 * capped retries spread out; the seed added it before the cap, so every capped retry
 * landed on the same second.
 */
export function applyJitter(jitter: Jitter, cappedMs: number, decorrelated: DecorrelatedInput, rng: Random): number {
  switch (jitter.type) {
    case 'none':
      return cappedMs;
    case 'full':
      return rng() * cappedMs;
    case 'equal':
      return cappedMs / 2 + (rng() * cappedMs) / 2;
    case 'proportional':
      // BullMQ's jitter fraction: uniform in [delay * (1 - fraction), delay].
      return cappedMs * (1 - jitter.fraction) + rng() * cappedMs * jitter.fraction;
    case 'symmetric':
      return Math.max(0, cappedMs + (2 * rng() - 1) * jitter.ms);
    case 'decorrelated':
      return decorrelatedDelayMs(decorrelated, rng);
  }
}
