import { Bounds } from './bounds.js';
import type { Random } from './random.js';

/**
 * SQS `DelaySeconds` is a whole number from 0 to 900. Rounding up (the seed's Math.ceil)
 * shifts every delay later and collapses jitter onto the same second; randomized
 * rounding (floor, plus one with probability equal to the fraction) keeps the mean
 * delay exact, so the spread survives.
 */
export function quantizeDelaySeconds(delayMs: number, rng: Random): number {
  const seconds = Math.max(0, delayMs / 1000);
  const whole = Math.floor(seconds);
  const rounded = whole + (rng() < seconds - whole ? 1 : 0);
  return Math.min(Bounds.maxSqsDelaySeconds, rounded);
}
