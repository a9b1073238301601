/** Messages handled are counted in buckets of this length, over this many buckets: the last 2 s. */
const BUCKET_MS = 250;
const BUCKETS = 8;
/** Weight of the newest round trip in the running estimate. */
const LATENCY_WEIGHT = 0.2;

/**
 * How many receive calls may be under way: enough to keep the handlers fed across a
 * receive's round trip, and one when there is nothing to do. At a measured round trip of
 * L seconds and a drain rate of R messages a second, a receive of 10 brings 10 messages
 * every L, so R·L/10 receives in flight keep up, and one more covers the growth; idle, a
 * single long poll waits, as cheap as a worker can be (3 calls a minute).
 */
export class ReceivePacer {
  private active = 0;
  private latencyMs = 0;
  private readonly buckets = new Array<number>(BUCKETS).fill(0);
  private bucketStart: number;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly batchSize: number,
    private readonly now: () => number,
  ) {
    this.bucketStart = now();
  }

  /** The receives wanted under way now. */
  get target(): number {
    const perSecond = this.handledRecently() / ((BUCKETS * BUCKET_MS) / 1000);
    const needed = 1 + Math.ceil((perSecond * this.latencyMs) / 1000 / this.batchSize);
    return Math.max(1, Math.min(this.max, needed));
  }

  /** Resolves when this receive may be made, or when `signal` aborts (then it must not be). */
  async turn(signal: AbortSignal): Promise<boolean> {
    while (this.active >= this.target) {
      if (signal.aborted) return false;
      await new Promise<void>((wake) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.waiters = this.waiters.filter((waiter) => waiter !== done);
          wake();
        };
        // The target rises with the drain rate, not only when a receive ends: look again soon.
        const timer = setTimeout(done, BUCKET_MS);
        signal.addEventListener('abort', done, { once: true });
        this.waiters.push(done);
      });
    }
    if (signal.aborted) return false;
    this.active++;
    return true;
  }

  /** A receive ended. A full batch came back without waiting: its duration is the round trip. */
  ended(durationMs: number, received: number): void {
    this.active--;
    if (received >= this.batchSize) this.latencyMs = this.latencyMs === 0 ? durationMs : this.latencyMs + LATENCY_WEIGHT * (durationMs - this.latencyMs);
    for (const wake of [...this.waiters]) wake();
  }

  /** A message's handler is done: the drain rate the receives follow. */
  handled(): void {
    this.roll();
    this.buckets[BUCKETS - 1]!++;
  }

  private handledRecently(): number {
    this.roll();
    return this.buckets.reduce((sum, n) => sum + n, 0);
  }

  private roll(): void {
    const now = this.now();
    const elapsed = Math.floor((now - this.bucketStart) / BUCKET_MS);
    if (elapsed <= 0) return;
    const shift = Math.min(elapsed, BUCKETS);
    this.buckets.splice(0, shift);
    for (let i = 0; i < shift; i++) this.buckets.push(0);
    this.bucketStart += elapsed * BUCKET_MS;
  }
}
