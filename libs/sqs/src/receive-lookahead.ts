/** How often the start rate is taken: long enough to hold many starts, short enough to follow a change within a second. */
const RATE_WINDOW_MS = 100;
/** Weight of the newest receive in the round trip's moving average: it follows a change within a few dozen receives. */
const ROUND_TRIP_SMOOTHING = 0.05;
/** How long the shortest round trip seen stands for the network's floor. */
const FLOOR_WINDOW_MS = 1000;
/** The most the round trip counts for, in floors: beyond that it is the event loop, not the network. */
const MAX_FLOORS = 2;
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
 * - The round trip is a moving average of what receives took, but at most twice the
 *   shortest seen in the last second or two. A region's round trips spread (10-30 ms):
 *   taking the shortest alone, at 15 ± 5 ms a call the engine alone ran at 0.61× its
 *   0 ms rate, against 0.86× with the average. But on a busy event loop a receive seems
 *   to take far longer than the network's floor without the handlers starting any more:
 *   with the average alone, the lookahead switched on at loopback and gave messages back.
 * - The limit grows only while nothing waits: a message already in hand when a receive
 *   lands says the lookahead is long enough (it cut the messages given back at 15 ms
 *   from 7% to 1.6% in the engine alone, for the same rate).
 * - Messages already waiting come off it: when the handlers are the bottleneck the
 *   prefetch is full and nothing runs ahead of it.
 * - A feedback limit guards it: halved when a message lands with the prefetch full (at
 *   most once a round trip), one more per receive that lands with nothing waiting.
 */
export class ReceiveLookahead {
  private startsPerMs = 0;
  private windowStart: number;
  private windowStarts = 0;
  /** The round trip's moving average; Infinity before one is measured. */
  private averageRoundTrip = Infinity;
  /** The shortest round trip of this window and the last. */
  private floor = { shortest: Infinity, previous: Infinity, since: 0 };
  private limit: number;
  private lastCutAt = -Infinity;
  private lookingAhead = false;

  constructor(
    /** What must be outgrown before it looks ahead, and the least it then allows. */
    private readonly prefetch: number,
    private readonly now: () => number,
  ) {
    this.windowStart = now();
    this.floor.since = this.windowStart;
    this.limit = prefetch;
  }

  /** What a receive takes, for Little's law: the average, but at most twice the shortest seen lately; Infinity before one is measured. */
  private get roundTripMs(): number {
    return Math.min(this.averageRoundTrip, MAX_FLOORS * Math.min(this.floor.shortest, this.floor.previous));
  }

  /** Messages extra to the bound that receives under way may bring now, with `waiting` already in hand. */
  allowance(waiting: number): number {
    return Math.max(0, this.extent - waiting);
  }

  /** Messages extra to the bound that receives under way may bring, before those waiting come off. */
  get extent(): number {
    return this.lookingAhead ? Math.min(this.limit, this.reach) : 0;
  }

  /** Messages a round trip brings at the measured start rate (Little's law); Infinity before a round trip is measured. */
  private get inTransit(): number {
    return this.roundTripMs === Infinity ? Infinity : this.startsPerMs * this.roundTripMs;
  }

  /** A round trip's worth of starts, with headroom, and never less than the prefetch. */
  private get reach(): number {
    const { inTransit } = this;
    return inTransit === Infinity ? this.prefetch : Math.max(this.prefetch, Math.ceil(inTransit * HEADROOM));
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

  /**
   * A receive that brought messages took this long (an empty long poll says nothing about
   * the round trip), and landed with `waiting` messages already in hand.
   */
  receiveTook(ms: number, waiting: number): void {
    const now = this.now();
    if (now - this.floor.since >= FLOOR_WINDOW_MS) this.floor = { shortest: Infinity, previous: this.floor.shortest, since: now };
    this.floor.shortest = Math.min(this.floor.shortest, ms);
    this.averageRoundTrip = this.averageRoundTrip === Infinity ? ms : this.averageRoundTrip + ROUND_TRIP_SMOOTHING * (ms - this.averageRoundTrip);
    if (waiting === 0) this.limit = Math.min(this.reach, this.limit + 1);
    this.switchOnOrOff();
  }

  /**
   * On once a round trip brings more than the prefetch holds, off once it brings less than
   * half: on loopback, say, the prefetch alone hides the round trip, and looking ahead
   * would only risk giving messages back.
   */
  private switchOnOrOff(): void {
    const { inTransit } = this;
    if (inTransit === Infinity) return;
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
