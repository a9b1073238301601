/** How often the start rate is taken: long enough to hold many starts, short enough to follow a change within a second. */
const RATE_WINDOW_MS = 100;
/** How long the shortest round trip seen stands for the round trip. */
const ROUND_TRIP_WINDOW_MS = 1000;
/** Weight of the newest sample in the start rate's moving average. */
const SMOOTHING = 0.3;

/**
 * Room to grow: with receives bringing exactly what the handlers start in a round trip,
 * the measured rate could only ever confirm itself, so a worker held back once would stay
 * there. A quarter more lets it rise to what its handlers can do within a few round trips.
 */
const HEADROOM = 1.25;

/**
 * How many messages receives may bring beyond the prefetch bound while they are under way:
 * what the handlers will have started by the time they land. At a region's round trip a
 * receive takes 10-30 ms; if the messages in it counted against the bound from the moment
 * it is sent, a worker could run at most `(maxInFlight + prefetch) / (round trip +
 * handler)` messages a second. By Little's law a round trip brings the rate handlers
 * start messages × the receive's round trip, both measured here; while that is no more
 * than the prefetch holds, the prefetch hides the round trip alone, and beyond it
 * receives may bring that much (with headroom) more. Messages still land at most
 * `prefetch` ahead of the handlers: what lands beyond that is given back.
 *
 * - It stops looking ahead only once a round trip brings less than half the prefetch. A
 *   worker not looking ahead runs at about the rate at which it starts to, so with one
 *   threshold every dip in the rate would turn the lookahead off and cap the worker below
 *   that rate again (in the bench at a 15 ms round trip, it was off half the time).
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
  private lookingAhead = false;

  constructor(
    /** What must be outgrown before it looks ahead, and the least it then allows. */
    private readonly prefetch: number,
    private readonly now: () => number,
  ) {
    this.windowStart = now();
    this.roundTrip.since = this.windowStart;
    this.limit = prefetch;
  }

  /** Messages extra to the bound that receives under way may bring now, with `waiting` already in hand. */
  allowance(waiting: number): number {
    return Math.max(0, this.extent - waiting);
  }

  /** Messages extra to the bound that receives under way may bring, before those waiting come off. */
  get extent(): number {
    return this.lookingAhead ? Math.min(this.limit, this.reach) : 0;
  }

  /** A round trip's worth of starts at the measured rate, with headroom, and never less than the prefetch. */
  private get reach(): number {
    const inTransit = this.startsPerMs * this.roundTripMs;
    return Number.isFinite(inTransit) ? Math.max(this.prefetch, Math.ceil(inTransit * HEADROOM)) : this.prefetch;
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
    // Weighted by the time the window spans: a lull of seconds is many windows without starts, not one.
    const weight = 1 - (1 - SMOOTHING) ** (elapsed / RATE_WINDOW_MS);
    this.startsPerMs += weight * (this.windowStarts / elapsed - this.startsPerMs);
    this.windowStart = now;
    this.windowStarts = 0;
    this.switchOnOrOff();
  }

  /** A receive that brought messages took this long (an empty long poll says nothing about the round trip). */
  receiveTook(ms: number): void {
    const now = this.now();
    if (now - this.roundTrip.since >= ROUND_TRIP_WINDOW_MS) this.roundTrip = { shortest: Infinity, previous: this.roundTrip.shortest, since: now };
    this.roundTrip.shortest = Math.min(this.roundTrip.shortest, ms);
    this.limit = Math.min(this.reach, this.limit + 1);
    this.switchOnOrOff();
  }

  /**
   * On once a round trip brings more than the prefetch holds, off once it brings less than
   * half: on loopback, say, the prefetch alone hides the round trip, and looking ahead
   * would only risk giving messages back.
   */
  private switchOnOrOff(): void {
    if (this.roundTripMs === Infinity) return;
    const inTransit = this.startsPerMs * this.roundTripMs;
    if (this.prefetch > 0 && inTransit > this.prefetch) this.lookingAhead = true;
    else if (inTransit < this.prefetch / 2) this.lookingAhead = false;
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
