import type { CancelTimer, WorkerTimers } from './timers.js';

interface Entry {
  at: number;
  fire: (() => void) | undefined;
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
  private entries: Entry[] = [];
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

  /** Calls `fire` once, the delay from now, unless cancelled first. */
  after(fire: () => void): CancelTimer {
    const entry: Entry = { at: this.now() + this.delayMs, fire };
    this.entries.push(entry);
    this.live += 1;
    if (this.armedFor === undefined) this.arm(entry.at);
    return () => {
      if (entry.fire === undefined) return;
      entry.fire = undefined;
      this.live -= 1;
      this.dropCancelled();
    };
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
      if (entry.fire !== undefined && entry.at > now) break;
      this.head += 1;
      const fire = entry.fire;
      if (fire === undefined) continue;
      entry.fire = undefined;
      this.live -= 1;
      fire();
    }
    this.dropCancelled();
    const next = this.entries[this.head];
    if (next !== undefined && this.armedFor === undefined) this.arm(next.at);
  }

  private dropCancelled(): void {
    while (this.head < this.entries.length && this.entries[this.head]!.fire === undefined) this.head += 1;
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.entries.length - this.head > 64 && this.entries.length - this.head > 2 * this.live) {
      this.entries = this.entries.slice(this.head).filter((entry) => entry.fire !== undefined);
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
