import type { RetryPolicy } from '@requeue/retry';
import { enginePolicy, freshRetryState, type RetryState, type Random } from '@requeue/retry/engine';
import { seedReferenceDelaySeconds } from './seed-reference-policy.js';

/** The downstream everyone retries against: down, then rate-limited. */
export interface HerdScenario {
  messages: number;
  outageSeconds: number;
  capacityPerSecond: number;
  /** The simulation stops here even if messages remain; they count as undrained. */
  horizonSeconds: number;
}

export const DEFAULT_SCENARIO: HerdScenario = { messages: 10_000, outageSeconds: 60, capacityPerSecond: 200, horizonSeconds: 24 * 3600 };

export interface HerdResult {
  downstreamCalls: number;
  successes: number;
  deadLettered: number;
  /** Seconds until the last message succeeded or was dead-lettered. */
  drainSeconds: number;
  peakCallsPerSecondAfterRecovery: number;
  undrained: number;
  /** Calls per second, index = second. */
  callsPerSecond: number[];
}

/** What the model asks a policy under test after a failed call. */
export interface SimulatedPolicy {
  readonly name: string;
  /** A delay in seconds, `notBeforeSecond` for a hop, or 'dead-letter'. */
  onFailure(message: SimulatedMessage, error: Error, second: number, rng: Random): number | 'dead-letter';
  /** For hops: seconds to wait again when a message arrives early, or undefined to run it. */
  onArrival(message: SimulatedMessage, second: number, rng: Random): number | undefined;
}

export interface SimulatedMessage {
  id: number;
  retry: RetryState;
  seedRetryCount: number;
}

const EPOCH = Date.UTC(2026, 0, 1);
const toMs = (second: number) => EPOCH + second * 1000;

/**
 * The same errors reach every policy: an HTTP 503 during the outage and an HTTP 429
 * beyond capacity. The seed classifies them by text, requeue by status.
 */
function unavailable(): Error {
  return Object.assign(new Error('upstream temporarily unavailable'), { status: 503 });
}
function rateLimited(): Error {
  return Object.assign(new Error('rate limit exceeded'), { status: 429 });
}

/**
 * Discrete-event model at one-second resolution: every message visible in a second is
 * received and called in that second, as a worker with ample concurrency would.
 */
export function simulateHerd(policy: SimulatedPolicy, scenario: HerdScenario, rng: Random): HerdResult {
  const buckets: SimulatedMessage[][] = [];
  const schedule = (second: number, message: SimulatedMessage) => (buckets[second] ??= []).push(message);
  for (let id = 0; id < scenario.messages; id++) {
    schedule(0, { id, retry: freshRetryState(`m-${id}`, EPOCH), seedRetryCount: 0 });
  }
  const callsPerSecond: number[] = [];
  let successes = 0;
  let deadLettered = 0;
  let lastResolved = 0;
  let pending = scenario.messages;
  for (let second = 0; second < scenario.horizonSeconds && pending > 0; second++) {
    const due = buckets[second] ?? [];
    buckets[second] = [];
    let calls = 0;
    for (const message of due) {
      const wait = policy.onArrival(message, second, rng);
      if (wait !== undefined) {
        schedule(second + Math.max(1, wait), message);
        continue;
      }
      calls++;
      const error = second < scenario.outageSeconds ? unavailable() : calls > scenario.capacityPerSecond ? rateLimited() : undefined;
      if (!error) {
        successes++;
        pending--;
        lastResolved = second;
        continue;
      }
      const outcome = policy.onFailure(message, error, second, rng);
      if (outcome === 'dead-letter') {
        deadLettered++;
        pending--;
        lastResolved = second;
      } else {
        // A zero delay is visible at once; at this resolution that is the next second.
        schedule(second + Math.max(1, outcome), message);
      }
    }
    callsPerSecond[second] = calls;
  }
  const afterRecovery = callsPerSecond.slice(scenario.outageSeconds);
  return {
    downstreamCalls: callsPerSecond.reduce((sum, calls) => sum + calls, 0),
    successes,
    deadLettered,
    drainSeconds: pending > 0 ? scenario.horizonSeconds : lastResolved + 1,
    peakCallsPerSecondAfterRecovery: afterRecovery.reduce((peak, calls) => Math.max(peak, calls), 0),
    undrained: pending,
    callsPerSecond,
  };
}

/** Drives the model with requeue's real `decide()`. */
export function requeuePolicy(name: string, retryPolicy: RetryPolicy): SimulatedPolicy {
  const policy = enginePolicy(retryPolicy);
  return {
    name,
    onFailure(message, error, second, rng) {
      const decision = policy.decide(message.retry, error, toMs(second), rng);
      if (decision.action === 'dead-letter') return 'dead-letter';
      message.retry = decision.state;
      return decision.delaySeconds;
    },
    onArrival(message, second, rng) {
      return policy.deferUntilNotBefore(message.retry, toMs(second), rng)?.delaySeconds;
    },
  };
}

export function seedReferencePolicy(): SimulatedPolicy {
  return {
    name: 'seed reference',
    onFailure(message, error, _second, rng) {
      const delay = seedReferenceDelaySeconds(error.message, message.seedRetryCount, rng);
      if (delay === undefined) return 'dead-letter';
      message.seedRetryCount++;
      return delay;
    },
    onArrival: () => undefined,
  };
}
