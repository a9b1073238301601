import type { Dependency } from './dependency.js';
import { fleetView } from './fleet-state.js';
import type { ResolvedFleet } from './options.js';
import { every, withDeadline, type CancelTimer, type WorkerTimers } from '../time/timers.js';

/** How the exchanges with the fleet's store are going: the worker logs the changes. */
export type FleetStoreHealth = { kind: 'unreachable'; error: unknown } | { kind: 'reachable' };

class FleetStoreTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the fleet store did not answer within ${timeoutMs} ms; each worker goes on with its own state until it does`);
    this.name = 'FleetStoreTimeoutError';
  }
}

/**
 * Exchanges each pushing-back dependency's report with the fleet's store: once per sync
 * interval, and at once when something changes (a 429, a pace learnt, a breaker's move).
 * One exchange per dependency at a time. A store that fails or is slow costs nothing but
 * the fleet's coordination: the gates keep their own state and the view they last read
 * goes stale, so each worker paces and pauses on its own until the store answers again.
 */
export class FleetSync {
  private stopTicks: CancelTimer | undefined;
  private readonly exchanging = new Set<string>();
  private unreachable = false;
  private stopped = false;

  constructor(
    private readonly fleet: ResolvedFleet,
    private readonly gates: () => Iterable<Dependency>,
    private readonly now: () => number,
    private readonly onHealth: (health: FleetStoreHealth) => void,
    private readonly timers: WorkerTimers,
  ) {}

  /** Starts the interval, once there is a dependency to report on. */
  ensureStarted(): void {
    if (this.stopTicks || this.stopped) return;
    this.stopTicks = every(this.timers, this.fleet.syncIntervalMs, () => {
      for (const gate of this.gates()) if (gate.pushingBack) void this.sync(gate);
    });
  }

  /** Reports one dependency's state and applies what the fleet reports back; never throws. */
  async sync(gate: Dependency): Promise<void> {
    if (this.stopped || this.exchanging.has(gate.key)) return;
    this.exchanging.add(gate.key);
    try {
      const state = gate.memberState(this.fleet.workerId);
      const { timeoutMs } = this.fleet;
      const exchange = this.fleet.store.exchange(gate.key, state, this.fleet.staleMs);
      const reports = await withDeadline(exchange, timeoutMs, () => new FleetStoreTimeoutError(timeoutMs), this.timers);
      if (!Array.isArray(reports)) throw new TypeError(`the fleet store answered ${typeof reports}, not a list of reports`);
      if (this.stopped) return;
      gate.applyFleet(fleetView(reports, state, this.now(), this.fleet.staleMs, this.fleet.maxPauseMs));
      this.health(false, undefined);
    } catch (error) {
      this.health(true, error);
    } finally {
      this.exchanging.delete(gate.key);
    }
  }

  stop(): void {
    this.stopped = true;
    this.stopTicks?.();
  }

  private health(unreachable: boolean, error: unknown): void {
    if (unreachable === this.unreachable) return;
    this.unreachable = unreachable;
    this.onHealth(unreachable ? { kind: 'unreachable', error } : { kind: 'reachable' });
  }
}
