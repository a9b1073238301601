import { SqsWorkerConfigError } from '../errors.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';

export interface BackpressureOptions {
  /** The per-dependency circuit breaker; `false` turns it off. */
  breaker?: Partial<CircuitBreakerOptions> | false;
  /**
   * AIMD on the calls each dependency may have under way, and, once it has rate-limited,
   * dispatches paced at the rate it admitted; `false` keeps `maxInFlight` fixed. @default true
   */
  adaptiveConcurrency?: boolean;
  /** Multiplier applied to a dependency's limit on each overload signal. @default 0.5 */
  decreaseFactor?: number;
  /** Waits up to this long hold the message in memory; longer ones defer it through SQS. @default 2000 */
  holdMs?: number;
  /** Pause after a rate limit that names no Retry-After; doubles while they continue, up to the breaker's maximum cool-down. @default 1000 */
  rateLimitPauseMs?: number;
}

export interface ResolvedBackpressure {
  breaker: CircuitBreakerOptions | false;
  adaptiveConcurrency: boolean;
  decreaseFactor: number;
  holdMs: number;
  rateLimitPauseMs: number;
  maxPauseMs: number;
}

/**
 * Chosen from the end-to-end herd benchmark (docs/retry-policy.md): half the calls
 * failing over 10 s with at least 20 calls is an outage, not a bad message mix; a 1 s
 * first cool-down doubling to 5 s finds a recovery within 5 s of it, for one probe call
 * per 5 s while it lasts.
 */
export const DEFAULT_BREAKER: CircuitBreakerOptions = {
  failureRate: 0.5,
  minimumRequests: 20,
  windowMs: 10_000,
  cooldownMs: 1000,
  maxCooldownMs: 5000,
  probes: 1,
};

function checked(option: string, value: number, min: number, max: number, integer = true): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new SqsWorkerConfigError(`backpressure.${option}`, `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** Validates the backpressure options, naming the one that is wrong. */
export function resolveBackpressure(options: BackpressureOptions = {}): ResolvedBackpressure {
  const breakerInput = options.breaker;
  const breaker =
    breakerInput === false
      ? false
      : {
          failureRate: checked('breaker.failureRate', breakerInput?.failureRate ?? DEFAULT_BREAKER.failureRate, 0.01, 1, false),
          minimumRequests: checked('breaker.minimumRequests', breakerInput?.minimumRequests ?? DEFAULT_BREAKER.minimumRequests, 1, 100_000),
          windowMs: checked('breaker.windowMs', breakerInput?.windowMs ?? DEFAULT_BREAKER.windowMs, 100, 3_600_000),
          cooldownMs: checked('breaker.cooldownMs', breakerInput?.cooldownMs ?? DEFAULT_BREAKER.cooldownMs, 10, 3_600_000),
          maxCooldownMs: checked('breaker.maxCooldownMs', breakerInput?.maxCooldownMs ?? DEFAULT_BREAKER.maxCooldownMs, 10, 3_600_000),
          probes: checked('breaker.probes', breakerInput?.probes ?? DEFAULT_BREAKER.probes, 1, 1000),
        };
  if (breaker && breaker.maxCooldownMs < breaker.cooldownMs) {
    throw new SqsWorkerConfigError('backpressure.breaker.maxCooldownMs', `must be at least cooldownMs (${breaker.cooldownMs}), got ${breaker.maxCooldownMs}`);
  }
  return {
    breaker,
    adaptiveConcurrency: options.adaptiveConcurrency ?? true,
    decreaseFactor: checked('decreaseFactor', options.decreaseFactor ?? 0.5, 0.05, 0.95, false),
    holdMs: checked('holdMs', options.holdMs ?? 2000, 0, 60_000),
    rateLimitPauseMs: checked('rateLimitPauseMs', options.rateLimitPauseMs ?? 1000, 1, 3_600_000),
    maxPauseMs: breaker ? breaker.maxCooldownMs : DEFAULT_BREAKER.maxCooldownMs,
  };
}
