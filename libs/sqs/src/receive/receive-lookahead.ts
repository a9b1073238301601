/** How often the start rate is taken: long enough to hold dozens of starts, short enough to follow a ramp within a few windows. */
const RATE_WINDOW_MS = 50;
/** Weight of a window whose rate is above the average: a worker ramping up is starved until the lookahead catches up. */
const RISING = 0.7;
/** Weight of a window whose rate is below it: one slow window (a GC pause, say) is not a slower worker. */
const FALLING = 0.3;
/** Weight of the newest receive in the round trip's moving average: it follows a change within a few dozen receives. */
const ROUND_TRIP_SMOOTHING = 0.05;
/** How long the shortest round trip seen stands for the network's floor. */
const FLOOR_WINDOW_MS = 1000;
/** The most the round trip counts for, in floors: beyond that it is the event loop, not the network. */
const MAX_FLOORS = 2;
/**
 * The share of the prefetch kept free for receives that land together: where it starts,
 * and the least and most it may become (see `gaveBack`).
 */
const ROOM = { initial: 0.7, least: 0.6, most: 1.5 };
/**
 * The share of messages given back that the room is tuned to: each costs its share of a
 * visibility call and a receive again, so 1% keeps a happy path near 0.203 calls a message.
 */
const GIVE_BACK_TARGET = 0.01;
/** Room a message given back adds, in messages; each message started takes `GIVE_BACK_TARGET` of that away. */
const ROOM_STEP = 0.25;

/**
 * How many messages receives may bring beyond the prefetch bound while they are under way.
 * At a region's round trip a receive takes 10-30 ms; if the messages in it counted
 * against the bound from the moment it is sent, a worker could run at most
 * `(maxInFlight + prefetch) / (round trip + handler)` messages a second.
 *
 * By Little's law, receives under way hold the rate handlers start messages × a receive's
 * round trip, both measured here. The handlers clock the receives: one goes out as slots
 * free up, so with the handlers busy, the messages waiting for one settle at
 * `prefetch + allowance - in transit`. The allowance is what is in transit less a room
 * (70% of the prefetch to begin with), so about 30% of the prefetch waits: in hand when a
 * receive is late, with room for receives that land together. What lands beyond the
 * prefetch is given back, so messages still wait at most `prefetch` ahead of the handlers.
 *
 * - The room follows the waves: each message given back widens it a little, each message
 *   started narrows it a little, so about 1% are given back. On a worker whose event loop
 *   is busy, receives land in larger waves, which a fixed room would give back far more of.
 * - Nothing extra while a round trip brings less than the room (on loopback, say): the
 *   prefetch alone hides it, and looking ahead would only risk giving messages back. The
 *   allowance grows from zero with the round trip, with no threshold to flip on and off
 *   as the rate wavers.
 * - A starved worker still grows: with nothing waiting, receives may bring more than the
 *   measured rate calls for (the part of the prefetch outside the room, and the slots of
 *   idle handlers), so the rate measured next is higher.
 *   The rate follows a rise faster than a fall, so the ramp after a start or a lull takes
 *   a few windows, not seconds (with a symmetric average the handlers of the engine alone
 *   starved for the first 750 ms of a backlog at 15 ms).
 * - The round trip is a moving average of what receives took, but at most twice the
 *   shortest seen in the last second or two. A region's round trips spread (10-30 ms), so
 *   the shortest alone undercounts; but on a busy event loop a receive seems to take far
 *   longer than the network's floor without the handlers starting any more, and the
 *   average alone would look ahead at loopback and give messages back.
 *
 * An earlier design also counted the messages waiting against the allowance and halved a
 * limit on it at every give-back. Both fed back on what had landed a round trip before:
 * receives stopped while a wave drained, so a round trip later nothing landed and the
 * handlers starved (a third of the time, in the engine alone at 15 ms).
 */
export class ReceiveLookahead {
  private startsPerMs = 0;
  private windowStart: number;
  private windowStarts = 0;
  /** The round trip's moving average; Infinity before one is measured. */
  private averageRoundTrip = Infinity;
  /** The shortest round trip of this window and the last. */
  private floor = { shortest: Infinity, previous: Infinity, since: 0 };
  /** Messages of the prefetch kept free for receives that land together. */
  private room: number;

  constructor(
    /** Messages that may wait for a handler: the cushion the lookahead keeps part of. */
    private readonly prefetch: number,
    private readonly now: () => number,
  ) {
    this.windowStart = now();
    this.floor.since = this.windowStart;
    this.room = ROOM.initial * prefetch;
  }

  /** What a receive takes, for Little's law: the average, but at most twice the shortest seen lately; Infinity before one is measured. */
  private get roundTripMs(): number {
    return Math.min(this.averageRoundTrip, MAX_FLOORS * Math.min(this.floor.shortest, this.floor.previous));
  }

  /** Messages extra to the bound that receives under way may bring: 0 with no prefetch or before a round trip is measured. */
  get allowance(): number {
    if (this.prefetch === 0 || this.roundTripMs === Infinity) return 0;
    const inTransit = this.rateNow() * this.roundTripMs;
    return Math.max(0, Math.ceil(inTransit - this.room));
  }

  /**
   * The start rate, counting a window still open for longer than a window if it started
   * fewer: handlers that stall start nothing, so no window would close, and the rate
   * measured before the stall would keep receives landing on a full prefetch, each
   * message given back making room for the next receive to bring it back, until the
   * redrive took it unrun.
   */
  private rateNow(): number {
    const elapsed = this.now() - this.windowStart;
    if (elapsed < RATE_WINDOW_MS) return this.startsPerMs;
    return Math.min(this.startsPerMs, this.averagedWith(this.windowStarts / elapsed, elapsed));
  }

  /** The average after a window of `elapsed` ms at `rate`. */
  private averagedWith(rate: number, elapsed: number): number {
    // Weighted by the time the window spans: a lull of seconds is many windows without starts, not one.
    const weight = 1 - (1 - (rate > this.startsPerMs ? RISING : FALLING)) ** (elapsed / RATE_WINDOW_MS);
    return this.startsPerMs + weight * (rate - this.startsPerMs);
  }

  /** Handlers started `count` messages. */
  started(count: number): void {
    this.room = Math.max(ROOM.least * this.prefetch, this.room - count * ROOM_STEP * GIVE_BACK_TARGET);
    this.windowStarts += count;
    const now = this.now();
    const elapsed = now - this.windowStart;
    if (elapsed < RATE_WINDOW_MS) return;
    this.startsPerMs = this.averagedWith(this.windowStarts / elapsed, elapsed);
    this.windowStart = now;
    this.windowStarts = 0;
  }

  /** A message landed with the prefetch full and was given back: receives land in larger waves than the room kept for them. */
  gaveBack(): void {
    this.room = Math.min(ROOM.most * this.prefetch, this.room + ROOM_STEP);
  }

  /** A receive that brought messages took this long (an empty long poll says nothing about the round trip). */
  receiveTook(ms: number): void {
    const now = this.now();
    if (now - this.floor.since >= FLOOR_WINDOW_MS) this.floor = { shortest: Infinity, previous: this.floor.shortest, since: now };
    this.floor.shortest = Math.min(this.floor.shortest, ms);
    this.averageRoundTrip = this.averageRoundTrip === Infinity ? ms : this.averageRoundTrip + ROUND_TRIP_SMOOTHING * (ms - this.averageRoundTrip);
  }
}
