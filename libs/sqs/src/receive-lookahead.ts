/** How often the start rate is taken: long enough to hold many starts, short enough to follow a change within a second. */
const RATE_WINDOW_MS = 100;
/** How long the shortest round trip seen stands for the round trip. */
const ROUND_TRIP_WINDOW_MS = 1000;
/** Weight of the newest sample in the start rate's moving average. */
const SMOOTHING = 0.3;

/**
 * How many messages receives may bring beyond the prefetch bound while they are under way:
 * what the handlers will have started by the time they land. At a region's round trip a
 * receive takes 10-30 ms; if the messages in it counted against the bound from the moment
 * it is sent, a worker could run at most `(maxInFlight + prefetch) / (round trip +
 * handler)` messages a second. By Little's law a round trip brings the rate handlers
 * start messages × the receive's round trip, both measured here; while that is no more
 * than the prefetch holds, the prefetch hides the round trip alone, and beyond it
 * receives may bring up to the prefetch again.
 *
 * - The round trip is the shortest seen lately, not the average: a busy event loop
 *   stretches what a receive seems to take without the handlers starting any more.
 * - Messages already waiting come off it: when the handlers are the bottleneck the
 *   prefetch is full and nothing runs ahead of it.
 * - A feedback limit guards it: halved when a message lands with the prefetch full (at
 *   most once a round trip), one more per receive that brought messages.
 */
export class ReceiveLookahead {
  private startsPerMs = 0;
  private windowStart: number;
  private windowStarts = 0;
  private roundTrip = { shortest: Infinity, previous: Infinity, since: 0 };
  private limit: number;
  private lastCutAt = -Infinity;

  constructor(
    /** The prefetch: what must be outgrown before it looks ahead, and the most it allows. */
    private readonly ceiling: number,
    private readonly now: () => number,
  ) {
    this.windowStart = now();
    this.roundTrip.since = this.windowStart;
    this.limit = ceiling;
  }

  /** Messages extra to the bound that receives under way may bring now, with `waiting` already in hand. */
  allowance(waiting: number): number {
    if (this.limit === 0 || this.roundTripMs === Infinity) return 0;
    // On loopback, say, a round trip brings less than the prefetch holds: looking ahead
    // would only risk giving messages back.
    if (this.startsPerMs * this.roundTripMs <= this.ceiling) return 0;
    return Math.max(0, this.limit - waiting);
  }

  /** The shortest receive round trip of this window and the last; Infinity before one is measured. */
  private get roundTripMs(): number {
    return Math.min(this.roundTrip.shortest, this.roundTrip.previous);
  }

  /** Handlers started `count` messages. */
  started(count: number): void {
    this.windowStarts += count;
    const now = this.now();
    const elapsed = now - this.windowStart;
    if (elapsed < RATE_WINDOW_MS) return;
    this.startsPerMs += SMOOTHING * (this.windowStarts / elapsed - this.startsPerMs);
    this.windowStart = now;
    this.windowStarts = 0;
  }

  /** A receive that brought messages took this long (an empty long poll says nothing about the round trip). */
  receiveTook(ms: number): void {
    const now = this.now();
    if (now - this.roundTrip.since >= ROUND_TRIP_WINDOW_MS) this.roundTrip = { shortest: Infinity, previous: this.roundTrip.shortest, since: now };
    this.roundTrip.shortest = Math.min(this.roundTrip.shortest, ms);
    this.limit = Math.min(this.ceiling, this.limit + 1);
  }

  /** A message landed with the prefetch full: the handlers started fewer than foreseen, so foresee less. */
  overflowed(): void {
    // Once per round trip at most: the messages of one receive landing together are one sign, not ten.
    const now = this.now();
    if (now - this.lastCutAt < Math.max(RATE_WINDOW_MS, this.roundTripMs)) return;
    this.lastCutAt = now;
    this.limit = Math.floor(this.limit / 2);
  }
}
