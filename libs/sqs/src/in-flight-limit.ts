/**
 * Counts message slots. Pollers reserve slots before they receive, so the worker never
 * holds more messages than it can run: that is the backpressure.
 */
export class InFlightLimit {
  private used = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  get capacity(): number {
    return this.limit;
  }

  get free(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Takes up to `wanted` slots at once and returns how many it got (possibly 0). */
  reserve(wanted: number): number {
    const granted = Math.min(wanted, this.free);
    this.used += granted;
    return granted;
  }

  release(count = 1): void {
    this.used = Math.max(0, this.used - count);
    if (this.free > 0) this.wake();
  }

  /**
   * Resolves once a slot is free (at once if one is), or when `signal` aborts. The abort
   * listener lives only as long as this wait: racing every wait against one long-lived
   * promise instead would retain a reaction per wait for the life of the worker.
   */
  whenFree(signal?: AbortSignal): Promise<void> {
    if (this.free > 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Resolves once nothing is in use. */
  async whenIdle(): Promise<void> {
    while (this.used > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
