import type { CancelTimer, WorkerTimers } from './timers.js';

interface Timer {
  at: number;
  order: number;
  fire: () => void;
  cancelled: boolean;
}

/**
 * Between two timers, every promise chain the last one started runs to its end. A
 * `nextTick` callback runs once the microtask queue is empty, so it settles what promises
 * and microtasks started; a turn of the event loop (`setImmediate`) would settle the same
 * and cost a poll of the loop per timer, a third of a simulated hour's run time.
 */
const settle = () => new Promise<void>((resolve) => process.nextTick(resolve));

/**
 * A clock and timers that move only when told. Given to the engine as `now` and `timers`,
 * it runs the engine in virtual time: `runUntil` fires the timers in time order (those due
 * at the same moment in the order they were set), letting every promise chain settle
 * between two, so an hour of retries takes as long as its CPU. A run is repeatable as
 * long as nothing in it waits on real I/O, real timers or `setImmediate`.
 */
export class VirtualTime implements WorkerTimers {
  private current: number;
  private order = 0;
  private timers: Timer[] = [];
  /** Cancelled timers still in the heap: dropped all at once when they are half of it. */
  private cancelled = 0;

  constructor(startMs = 0) {
    this.current = Math.floor(startMs);
  }

  /** The virtual clock, in milliseconds: pass it as the worker's `now`. */
  readonly now = (): number => this.current;

  /**
   * Calls `fire` once the clock reaches `ms` from now; the returned function cancels it.
   * The clock stays in whole milliseconds, as `Date.now()` does: a fractional delay (a
   * pacing interval of 1000 / rate) is rounded up, so no timestamp the engine writes, such
   * as `x-retry`'s `firstReceivedAt`, is ever a fraction.
   */
  after(ms: number, fire: () => void): CancelTimer {
    const timer: Timer = { at: this.current + Math.max(0, Math.ceil(ms)), order: this.order++, fire, cancelled: false };
    this.push(timer);
    return () => {
      if (timer.cancelled) return;
      timer.cancelled = true;
      // A handler's timeout, a long poll's wait: most timers are cancelled long before they are due.
      if (++this.cancelled > 1024 && this.cancelled * 2 > this.timers.length) this.compact();
    };
  }

  /**
   * Settles, then fires the next timer, until `done()` holds once everything has settled,
   * or no timer is left at or before `limitMs`. Resolves with whether `done()` held.
   */
  async runUntil(done: () => boolean, limitMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    for (;;) {
      await settle();
      if (done()) return true;
      const next = this.nextDue(limitMs);
      if (next === undefined) return false;
      this.current = Math.max(this.current, next.at);
      // Fired: a cancel from here on is a no-op, not a cancelled timer still in the heap.
      next.cancelled = true;
      next.fire();
    }
  }

  /** Moves the clock `ms` on, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const until = this.current + Math.ceil(ms);
    await this.runUntil(() => false, until);
    this.current = Math.max(this.current, until);
  }

  private nextDue(limitMs: number): Timer | undefined {
    while (this.timers.length > 0 && this.timers[0]!.cancelled) {
      this.pop();
      this.cancelled--;
    }
    const next = this.timers[0];
    if (next === undefined || next.at > limitMs) return undefined;
    return this.pop();
  }

  /** Drops the cancelled timers and rebuilds the heap from the rest. */
  private compact(): void {
    const live = this.timers.filter((timer) => !timer.cancelled);
    this.timers = [];
    this.cancelled = 0;
    for (const timer of live) this.push(timer);
  }

  private push(timer: Timer): void {
    const heap = this.timers;
    heap.push(timer);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!earlier(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Timer {
    const heap = this.timers;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    heap[0] = last;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && earlier(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && earlier(heap[right]!, heap[least]!)) least = right;
      if (least === i) return top;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
}

function earlier(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}
