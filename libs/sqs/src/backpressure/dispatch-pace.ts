/**
 * Once a dependency has rate-limited, concurrency alone cannot respect it: a fast
 * dependency takes a whole second's allowance in a few milliseconds, at any concurrency,
 * and rejects the rest. So dispatches are spaced by the rate it actually admitted between
 * its last two rate limits, 5% slower (a token bucket's reserve inflates that rate), and
 * the spacing shrinks by 1% per second of successes, so a dependency that raises its
 * limit is found again. Per second rather than per success: in a fleet each worker's
 * share is a fraction of the rate, and a per-success rule would have each find the
 * spare capacity that many times slower; per second, the fleet's total grows 1% a second
 * whatever its size.
 */
const SLOWER_THAN_ADMITTED = 1.05;
const SPEED_UP_PER_SECOND = 0.99;
/**
 * Once the dependency has accepted every call for this long, the pace lifts 5% a second,
 * so a passing episode stops throttling within tens of seconds rather than minutes. Not
 * faster: a worker paced 5% under a limit that still holds sees no rejection either, so a
 * faster lift overshoots the dependency every few seconds (docs/design/2026-11-26-backpressure.md).
 */
const QUIET_AFTER_MS = 10_000;
const SPEED_UP_PER_QUIET_SECOND = 0.95;
/** A pace is learnt from at most the last 10 s: older successes say little about the limit now. */
const MEASURE_WINDOW_MS = 10_000;
/**
 * One cycle's measure may at most halve the rate it is paced at. A cycle that let one or
 * two calls through, its pause included, measures a rate of one call every few seconds:
 * calls the dependency rejected for their own reasons (a message's repeated 429) and the
 * pause itself crowd out the successes it counts, and each slower pace leaves fewer in
 * the next cycle. A dependency whose limit did drop that far is reached in a few cycles.
 */
const MAX_SLOWDOWN_PER_MEASURE = 2;

/** Successes per second over the last `MEASURE_WINDOW_MS`, in one-second buckets. */
class RecentSuccesses {
  private readonly buckets = Array.from({ length: MEASURE_WINDOW_MS / 1000 }, () => ({ second: -1, count: 0 }));

  add(now: number): void {
    const second = Math.floor(now / 1000);
    const bucket = this.buckets[second % this.buckets.length]!;
    if (bucket.second !== second) Object.assign(bucket, { second, count: 0 });
    bucket.count++;
  }

  /** How many in the window, and since when: the start of the oldest second that has any. */
  window(now: number): { count: number; since: number } {
    const current = this.buckets.filter((bucket) => bucket.second > Math.floor(now / 1000) - this.buckets.length && bucket.count > 0);
    const count = current.reduce((sum, bucket) => sum + bucket.count, 0);
    return { count, since: Math.min(now, ...current.map((bucket) => bucket.second * 1000)) };
  }

  clear(): void {
    for (const bucket of this.buckets) Object.assign(bucket, { second: -1, count: 0 });
  }
}

export class DispatchPace {
  private spacingMs = 0;
  private nextDispatchAt = 0;
  private firstSuccessAt: number | undefined;
  private successesSince = 0;
  private spedUpAt = 0;
  private lastRejectedAt = 0;
  private readonly recent = new RecentSuccesses();
  /** When the pace was last measured from this worker's own calls; 0 before. */
  measuredAt = 0;
  /** Since when dispatches have been spaced; 0 while they are not. */
  pacedSince = 0;

  /**
   * `inThisCycle`: the call started after the last rate limit. One that started before ran
   * in the cycle before: counted in this one, a burst's stragglers landing a few
   * milliseconds after its 429 would measure a rate of hundreds a second.
   */
  onSuccess(now: number, inThisCycle: boolean): void {
    this.firstSuccessAt ??= now;
    if (inThisCycle) {
      this.successesSince++;
      this.recent.add(now);
    }
    const factor = now - this.lastRejectedAt > QUIET_AFTER_MS ? SPEED_UP_PER_QUIET_SECOND : SPEED_UP_PER_SECOND;
    if (now > this.spedUpAt) this.spacingMs *= factor ** ((now - this.spedUpAt) / 1000);
    this.spedUpAt = now;
  }

  /**
   * Learns the pace from the cycle that ends here, begun at the rate limit before (none for
   * the first). True when the dependency was already paced and admitted calls during the
   * cycle: it admits less than asked, not nothing.
   */
  onRateLimited(now: number, retryAfterMs: number, cycleStartedAt: number | undefined): boolean {
    const wasPaced = this.active;
    // A cycle runs from one rate limit to the next, its pause included. The first has no
    // start: its successes, plus the pause the dependency asked for, stand for one. Either
    // is measured over its last MEASURE_WINDOW_MS at most.
    const startedAt = cycleStartedAt ?? this.firstSuccessAt ?? now;
    // Past the window, the successes of its last seconds, over the time since the first of them.
    const recent = now - startedAt > MEASURE_WINDOW_MS ? this.recent.window(now) : { count: this.successesSince, since: startedAt };
    const successes = recent.count;
    const admitted = successes > 0;
    if (admitted) {
      const cycleMs = now - recent.since + (cycleStartedAt === undefined ? retryAfterMs : 0);
      const measuredMs = (SLOWER_THAN_ADMITTED * cycleMs) / successes;
      this.setSpacing(wasPaced ? Math.min(measuredMs, this.spacingMs * MAX_SLOWDOWN_PER_MEASURE) : measuredMs, now);
      this.measuredAt = now;
    }
    this.spedUpAt = now;
    this.lastRejectedAt = now;
    this.successesSince = 0;
    this.recent.clear();
    return wasPaced && admitted;
  }

  /** The calls per second this pace allows; 0 when it is not active. */
  get ratePerSecond(): number {
    return this.active ? 1000 / this.spacingMs : 0;
  }

  /** Takes a pace learnt elsewhere: this worker's share of what the fleet is admitted. */
  adopt(ratePerSecond: number, now: number): void {
    this.setSpacing(1000 / ratePerSecond, now);
    this.spedUpAt = now;
    // The fleet is being rejected: no quiet period has begun.
    this.lastRejectedAt = now;
  }

  private setSpacing(spacingMs: number, now: number): void {
    if (!this.active) this.pacedSince = now;
    this.spacingMs = spacingMs;
  }

  /** Whether dispatches are spaced: the dependency has rate-limited and the pace is learnt. */
  get active(): boolean {
    return this.spacingMs >= 1;
  }

  /** When the next dispatch may go, if not now. */
  nextAt(now: number): number | undefined {
    return this.active && now < this.nextDispatchAt ? this.nextDispatchAt : undefined;
  }

  /** When the call at `position` in the queue (1 = next) would go, at this pace. */
  dispatchAtPosition(now: number, position: number): number {
    return Math.max(now, this.nextDispatchAt) + (position - 1) * this.spacingMs;
  }

  dispatched(now: number): void {
    this.nextDispatchAt = Math.max(now, this.nextDispatchAt) + this.spacingMs;
  }
}
