import type { Dependency } from './dependency.js';
import { fleetView } from './fleet-state.js';
import type { ResolvedFleet } from './options.js';

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
  private timer: NodeJS.Timeout | undefined;
  private readonly exchanging = new Set<string>();
  private unreachable = false;
  private stopped = false;

  constructor(
    private readonly fleet: ResolvedFleet,
    private readonly gates: () => Iterable<Dependency>,
    private readonly now: () => number,
    private readonly onHealth: (health: FleetStoreHealth) => void,
  ) {}

  /** Starts the interval, once there is a dependency to report on. */
  ensureStarted(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      for (const gate of this.gates()) if (gate.pushingBack) void this.sync(gate);
    }, this.fleet.syncIntervalMs);
    this.timer.unref();
  }

  /** Reports one dependency's state and applies what the fleet reports back; never throws. */
  async sync(gate: Dependency): Promise<void> {
    if (this.stopped || this.exchanging.has(gate.key)) return;
    this.exchanging.add(gate.key);
    let timeout: NodeJS.Timeout | undefined;
    try {
      const state = gate.memberState(this.fleet.workerId);
      const timedOut = new Promise<never>((_, reject) => {
        timeout = setTimeout(() => reject(new FleetStoreTimeoutError(this.fleet.timeoutMs)), this.fleet.timeoutMs);
      });
      const reports = await Promise.race([this.fleet.store.exchange(gate.key, state, this.fleet.staleMs), timedOut]);
      if (!Array.isArray(reports)) throw new TypeError(`the fleet store answered ${typeof reports}, not a list of reports`);
      if (this.stopped) return;
      gate.applyFleet(fleetView(reports, state, this.now(), this.fleet.staleMs, this.fleet.maxPauseMs));
      this.health(false, undefined);
    } catch (error) {
      this.health(true, error);
    } finally {
      clearTimeout(timeout);
      this.exchanging.delete(gate.key);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private health(unreachable: boolean, error: unknown): void {
    if (unreachable === this.unreachable) return;
    this.unreachable = unreachable;
    this.onHealth(unreachable ? { kind: 'unreachable', error } : { kind: 'reachable' });
  }
}
