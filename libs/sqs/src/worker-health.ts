import type { DependencySnapshot } from './backpressure/admission.js';

/** What `/health/live` and `/health/ready` report for one consumer. */
export interface WorkerHealth {
  /** The poll loop is making progress (it may be backing off). */
  live: boolean;
  /** Started, not stopping, the last receive succeeded, polling is not stuck with slots free, and the idempotency store (if any) answers. */
  ready: boolean;
  /** Messages received and not yet settled. */
  inFlight: number;
  /** The most handlers that run at once. */
  maxInFlight: number;
  /** Epoch ms of the last receive that returned or failed. */
  lastPollActivityAt: number;
  /** Receives that failed in a row (0 after a success). */
  consecutivePollFailures: number;
  /**
   * Dependencies' breakers and concurrency limits, at most 20: those pushing back first,
   * then the most recently used. Details, never a reason to be unready.
   */
  dependencies: DependencySnapshot[];
  /** ECS task scale-in protection's calls so far, by outcome (failures are logged too); absent when it is off. */
  taskProtection?: { enabled: number; cleared: number; renewed: number; failed: number };
}
