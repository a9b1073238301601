/**
 * How many receive calls may be under way. While receives bring messages, as many as
 * there are free slots to fill (each loop reserves its batch first, so the held bound
 * caps them); once one comes back empty, a single long poll, as cheap as a worker can
 * be (3 calls a minute at the 20 s wait), until a receive brings messages again. Tying
 * the count to a measured rate instead would ramp up over seconds after every lull: at a
 * region's round trip that is seconds of idle slots.
 */
export class ReceivePacer {
  private active = 0;
  private idle = true;
  private waiters: Array<() => void> = [];

  constructor(private readonly max: number) {}

  /** The receives wanted under way now. */
  get target(): number {
    return this.idle ? 1 : this.max;
  }

  /** Resolves when this receive may be made; false when `signal` aborted first (then it must not be). */
  async turn(signal: AbortSignal): Promise<boolean> {
    while (this.active >= this.target && !signal.aborted) {
      await new Promise<void>((wake) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          this.waiters = this.waiters.filter((waiter) => waiter !== done);
          wake();
        };
        signal.addEventListener('abort', done, { once: true });
        this.waiters.push(done);
      });
    }
    if (signal.aborted) return false;
    this.active++;
    return true;
  }

  /** A receive ended, with this many messages (0 for an empty long poll or a failure). */
  ended(received: number): void {
    this.active--;
    this.idle = received === 0;
    for (const wake of [...this.waiters]) wake();
  }
}
