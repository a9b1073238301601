import { randomUUID } from 'node:crypto';
import { outOfRange } from '@requeue/retry/engine';
import { SqsWorkerConfigError } from '../errors.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import type { FleetStateStore } from './fleet-state.js';

/**
 * Workers of one fleet sharing what each learnt about a dependency, so that together they
 * keep to the rate it admits and a late worker does not burst into it. Only while a
 * dependency pushes back (paced, paused, breaker not closed): none of it in the happy path.
 */
export interface FleetOptions {
  /** Where the workers' reports live (see docs/retry-policy.md for Redis and DynamoDB). */
  store: FleetStateStore;
  /** This worker's id, unique within the fleet. @default a random UUID */
  workerId?: string;
  /** How often a worker whose dependency pushes back exchanges its report. @default 1000 */
  syncIntervalMs?: number;
  /** An exchange slower than this is given up; the worker goes on with its own state. @default 500 */
  timeoutMs?: number;
}

export interface ResolvedFleet {
  store: FleetStateStore;
  workerId: string;
  syncIntervalMs: number;
  timeoutMs: number;
  /** Reports older than this (three sync intervals) are the reports of a worker gone. */
  staleMs: number;
  /** A pause another worker reports is believed for at most this long from its report. */
  maxPauseMs: number;
}

/**
 * Backpressure per dependency (docs/worker.md, Backpressure): a circuit breaker, adaptive
 * concurrency, and pauses on rate limits, optionally shared across the fleet.
 */
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
  /**
   * Messages meeting their first 429 within 5 s before the dependency itself is paused or
   * paced; fewer are their messages' own to wait out. @default 3
   */
  rateLimitEvidence?: number;
  /** Share state with the fleet's other workers. @default - each worker on its own */
  fleet?: FleetOptions;
}

export interface ResolvedBackpressure {
  breaker: CircuitBreakerOptions | false;
  adaptiveConcurrency: boolean;
  decreaseFactor: number;
  holdMs: number;
  /**
   * How long a message of a paused dependency waits in its handler's slot before it is
   * deferred through SQS: `holdMs`, or 0 with tenants on, where that slot is another
   * tenant's to take.
   */
  pauseHoldMs: number;
  rateLimitPauseMs: number;
  rateLimitEvidence: number;
  maxPauseMs: number;
  fleet: ResolvedFleet | undefined;
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
  const problem = outOfRange(value, { min, max, whole: integer });
  if (problem) throw new SqsWorkerConfigError(`backpressure.${option}`, problem);
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
  const maxPauseMs = breaker ? breaker.maxCooldownMs : DEFAULT_BREAKER.maxCooldownMs;
  const holdMs = checked('holdMs', options.holdMs ?? 2000, 0, 60_000);
  return {
    breaker,
    adaptiveConcurrency: options.adaptiveConcurrency ?? true,
    decreaseFactor: checked('decreaseFactor', options.decreaseFactor ?? 0.5, 0.05, 0.95, false),
    holdMs,
    pauseHoldMs: holdMs,
    rateLimitPauseMs: checked('rateLimitPauseMs', options.rateLimitPauseMs ?? 1000, 1, 3_600_000),
    rateLimitEvidence: checked('rateLimitEvidence', options.rateLimitEvidence ?? 3, 1, 1000),
    maxPauseMs,
    fleet: options.fleet === undefined ? undefined : resolveFleet(options.fleet, maxPauseMs),
  };
}

function resolveFleet(fleet: FleetOptions, maxPauseMs: number): ResolvedFleet {
  if (typeof fleet?.store?.exchange !== 'function') {
    throw new SqsWorkerConfigError('backpressure.fleet.store', 'needs an exchange(dependency, state, staleMs) method: a Redis or DynamoDB fleet store');
  }
  const workerId = fleet.workerId ?? randomUUID();
  if (typeof workerId !== 'string' || workerId.length === 0 || workerId.length > 200) {
    throw new SqsWorkerConfigError('backpressure.fleet.workerId', `must be 1 to 200 characters, got ${JSON.stringify(workerId)}`);
  }
  const syncIntervalMs = checked('fleet.syncIntervalMs', fleet.syncIntervalMs ?? 1000, 100, 60_000);
  return {
    store: fleet.store,
    workerId,
    syncIntervalMs,
    timeoutMs: checked('fleet.timeoutMs', fleet.timeoutMs ?? 500, 10, 60_000),
    staleMs: 3 * syncIntervalMs,
    maxPauseMs,
  };
}
