import type { CancelTimer, WorkerTimers } from './timers.js';

/** What a timer tells when its delay is up: an object the caller already has, rather than a closure made per timer. */
export interface Expiring {
  expired(): void;
}

/** A timer set by `start`, for `cancel`. */
export interface SameDelayTimer {
  readonly at: number;
  target: Expiring | undefined;
}

/**
 * Timers that all wait the same time, on one timer of the clock's: the handler timeout is
 * one per message, and a Node timer each (set, then cleared when the handler is done) was
 * a timer object and two calls into the timer list per message. Deadlines come in the
 * order the timers were set, so one timer armed for the oldest live one serves them all.
 * A cancelled entry is dropped when it reaches the front, or when the list has grown to
 * more than twice the live ones (a slow handler holding the front).
 */
export class SameDelayTimers {
  private entries: SameDelayTimer[] = [];
  private head = 0;
  private live = 0;
  private armedFor: number | undefined;
  private cancelArmed: CancelTimer | undefined;

  constructor(
    /** How long every timer waits. */
    readonly delayMs: number,
    private readonly timers: WorkerTimers,
    private readonly now: () => number,
  ) {}

  /** Tells `target` once, the delay from now, unless cancelled first. */
  start(target: Expiring): SameDelayTimer {
    const entry: SameDelayTimer = { at: this.now() + this.delayMs, target };
    this.entries.push(entry);
    this.live += 1;
    if (this.armedFor === undefined) this.arm(entry.at);
    return entry;
  }

  /** Cancels a timer `start` set; does nothing once it has fired or been cancelled. */
  cancel(entry: SameDelayTimer): void {
    if (entry.target === undefined) return;
    entry.target = undefined;
    this.live -= 1;
    this.dropCancelled();
  }

  private arm(at: number): void {
    this.armedFor = at;
    this.cancelArmed = this.timers.after(Math.max(0, at - this.now()), () => this.expire());
  }

  private expire(): void {
    this.armedFor = undefined;
    this.cancelArmed = undefined;
    const now = this.now();
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (entry.target !== undefined && entry.at > now) break;
      this.head += 1;
      const target = entry.target;
      if (target === undefined) continue;
      entry.target = undefined;
      this.live -= 1;
      target.expired();
    }
    this.dropCancelled();
    const next = this.entries[this.head];
    if (next !== undefined && this.armedFor === undefined) this.arm(next.at);
  }

  private dropCancelled(): void {
    while (this.head < this.entries.length && this.entries[this.head]!.target === undefined) this.head += 1;
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.entries.length - this.head > 64 && this.entries.length - this.head > 2 * this.live) {
      this.entries = this.entries.slice(this.head).filter((entry) => entry.target !== undefined);
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    if (this.live === 0 && this.cancelArmed) {
      // Nothing left to time: no timer may hold the process open until the old deadline.
      this.cancelArmed();
      this.cancelArmed = undefined;
      this.armedFor = undefined;
    }
  }
}
