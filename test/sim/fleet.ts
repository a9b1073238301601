import { Incarnation } from './mortal.js';

/**
 * The dependency's load: how many handler runs are waiting on it at once, in each worker
 * process and across the fleet. A run counts from its start until it answers or is
 * aborted (the engine's timeout, or shutdown), whichever comes first; a dead process's
 * runs stop counting when it dies, since they never call out again.
 */
export class DependencyLoad {
  peakPerProcess = 0;
  peakFleet = 0;
  private fleet = 0;
  private readonly running = new Map<Incarnation, number>();

  /** Counts a run of `life` until `ended` settles or `signal` aborts. */
  track(life: Incarnation, signal: AbortSignal, ended: Promise<unknown>): void {
    this.add(life, 1);
    let counted = true;
    const stop = () => {
      if (!counted) return;
      counted = false;
      if (!life.dead) this.add(life, -1);
    };
    // The abort is dispatched at once, before the engine frees the run's slot: a count
    // taken when the settled promise's callback runs could see the next run start first.
    signal.addEventListener('abort', stop, { once: true });
    ended.then(stop, stop);
  }

  /** A process died: what it was running no longer loads the dependency. */
  died(life: Incarnation): void {
    this.fleet -= this.running.get(life) ?? 0;
    this.running.delete(life);
  }

  private add(life: Incarnation, delta: number): void {
    const now = (this.running.get(life) ?? 0) + delta;
    this.running.set(life, now);
    this.fleet += delta;
    this.peakPerProcess = Math.max(this.peakPerProcess, now);
    this.peakFleet = Math.max(this.peakFleet, this.fleet);
  }
}

/** Resolves after `ms` of (virtual) time, as a dependency that answers slowly; rejects when `signal` aborts first. */
export function slowAnswer(after: (ms: number, fire: () => void) => () => void, ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const cancel = after(ms, resolve);
    signal.addEventListener(
      'abort',
      () => {
        cancel();
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
