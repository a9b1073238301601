/**
 * Counts message slots. Pollers reserve slots before they receive, so the worker never
 * holds more messages than it can run: that is the backpressure.
 */
export class InFlightLimit {
  private used = 0;
  private waiters: Array<{ ready: () => boolean; wake: () => void }> = [];

  constructor(private limit: number) {}

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

  /** A new capacity; slots in use beyond a smaller one stay in use until released. */
  resize(capacity: number): void {
    if (capacity === this.limit) return;
    this.limit = capacity;
    this.wake();
  }

  release(count = 1): void {
    this.used = Math.max(0, this.used - count);
    this.wake();
  }

  /**
   * Resolves once `atLeast` slots (at most the capacity) are free, at once if they are,
   * or when `signal` aborts. The waiter and its abort listener live only as long as this
   * wait: racing every wait against one long-lived promise instead would retain a
   * reaction per wait for the life of the worker.
   */
  whenFree(signal?: AbortSignal, atLeast = 1): Promise<void> {
    // Against the capacity of the moment: it may be resized while this waits.
    const enough = () => this.free >= Math.min(atLeast, this.limit);
    if (enough() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        ready: enough,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves once nothing is in use. */
  whenIdle(): Promise<void> {
    if (this.used === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ ready: () => this.used === 0, wake: resolve }));
  }

  private wake(): void {
    if (!this.waiters.some((w) => w.ready())) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (waiter.ready()) waiter.wake();
      else this.waiters.push(waiter);
    }
  }
}
