import type { Random } from '@requeue/retry/engine';
import type { BreakerState } from './circuit-breaker.js';
import type { DependencySnapshot } from './admission.js';
import { Dependency } from './dependency.js';
import { FleetSync, type FleetStoreHealth } from './fleet-sync.js';
import type { ResolvedBackpressure } from './options.js';
import { realTimers, type WorkerTimers } from '../time/timers.js';

/** What the worker hears about its dependencies, to log. */
export interface DependencyEvents {
  onBreakerTransition?: (key: string, state: BreakerState) => void;
  /** The fleet's store stopped or started answering. */
  onFleetStoreHealth?: (health: FleetStoreHealth) => void;
}

/** Idle gates older than this are forgotten, so per-host keys cannot grow without bound. */
const IDLE_EVICTION_MS = 10 * 60 * 1000;
/**
 * The most gates kept: past it, the least recently used idle one goes. Keys come from
 * messages (the webhook's host), and a publisher naming a new host per message must not
 * grow the worker's memory, its metrics and its health body with them.
 */
export const MAX_DEPENDENCIES = 1000;

/** Every dependency the worker has seen, by key. */
export class Dependencies {
  private readonly gates = new Map<string, Dependency>();
  /** The key last moved to the end of `gates`: most messages name the same dependency as the one before. */
  private mostRecent: string | undefined;
  private lastSweepAt: number;
  private readonly fleet: FleetSync | undefined;

  constructor(
    private readonly options: ResolvedBackpressure,
    private readonly maxInFlight: number,
    private readonly now: () => number,
    private readonly random: Random,
    private readonly events: DependencyEvents = {},
    private readonly timers: WorkerTimers = realTimers,
  ) {
    this.lastSweepAt = now();
    this.fleet = options.fleet
      ? new FleetSync(options.fleet, () => this.gates.values(), now, events.onFleetStoreHealth ?? (() => undefined), timers)
      : undefined;
  }

  get(key: string): Dependency {
    this.sweep();
    const known = this.gates.get(key);
    if (known) {
      // Most recently used last: eviction takes from the front. Moving a key costs the map
      // a deleted slot, and a rehash every few moves, so one already last stays.
      if (key !== this.mostRecent) {
        this.gates.delete(key);
        this.gates.set(key, known);
        this.mostRecent = key;
      }
      return known;
    }
    const gate: Dependency = new Dependency(
      key,
      this.options,
      this.maxInFlight,
      this.now,
      this.random,
      this.events.onBreakerTransition,
      () => void this.fleet?.sync(gate),
      this.timers,
    );
    this.gates.set(key, gate);
    this.mostRecent = key;
    if (this.gates.size > MAX_DEPENDENCIES) this.evictLeastRecentlyUsed();
    this.fleet?.ensureStarted();
    return gate;
  }

  /** The oldest idle gate; a gate with calls running or waiting keeps its state until they end. */
  private evictLeastRecentlyUsed(): void {
    for (const [key, gate] of this.gates) {
      if (gate.idle) {
        this.gates.delete(key);
        return;
      }
    }
  }

  /**
   * While every known dependency is blocked (breaker open, paused, or its paced queue
   * full), anything received would only be handed back: polling waits until the first of
   * them unblocks. With no key set by the handler there is one dependency, the queue's own.
   */
  receiveBlockedUntil(): number | undefined {
    let earliest: number | undefined;
    for (const gate of this.gates.values()) {
      const until = gate.busyUntil();
      if (until === undefined) return undefined;
      earliest = earliest === undefined ? until : Math.min(earliest, until);
    }
    return earliest;
  }

  /** Whether any dependency is paused, its circuit open, or its paced queue full: then nothing is fetched ahead of the handlers. */
  anyBlocked(): boolean {
    for (const gate of this.gates.values()) if (gate.busyUntil() !== undefined) return true;
    return false;
  }

  /**
   * At most `limit` dependencies, those pushing back first (paced, paused or their
   * breaker not closed), then the most recently used; with `pushingBackOnly`, no others.
   */
  snapshot(limit = Number.POSITIVE_INFINITY, pushingBackOnly = false): DependencySnapshot[] {
    const recentFirst = [...this.gates.values()].reverse();
    const pushing = recentFirst.filter((gate) => gate.pushingBack);
    const chosen = pushingBackOnly ? pushing : [...pushing, ...recentFirst.filter((gate) => !gate.pushingBack)];
    return chosen.slice(0, limit).map((gate) => gate.snapshot());
  }

  stop(): void {
    this.fleet?.stop();
    for (const gate of this.gates.values()) gate.stop();
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweepAt < IDLE_EVICTION_MS) return;
    this.lastSweepAt = now;
    for (const [key, gate] of this.gates) if (gate.idle && now - gate.lastUsedAt > IDLE_EVICTION_MS) this.gates.delete(key);
  }
}
