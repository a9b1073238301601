/**
 * Once a dependency has rate-limited, concurrency alone cannot respect it: a fast
 * dependency takes a whole second's allowance in a few milliseconds, at any concurrency,
 * and rejects the rest. So dispatches are spaced by the rate it actually admitted between
 * its last two rate limits, 5% slower (a token bucket's reserve inflates that rate), and
 * the spacing shrinks by 0.01% per success, about 1% a second at 100 calls/s, so a
 * dependency that raises its limit is found again.
 */
const SLOWER_THAN_ADMITTED = 1.05;
const SPEED_UP_PER_SUCCESS = 0.9999;

export class DispatchPace {
  private spacingMs = 0;
  private nextDispatchAt = 0;
  private lastRateLimitAt: number | undefined;
  private firstSuccessAt: number | undefined;
  private successesSince = 0;

  onSuccess(now: number): void {
    this.firstSuccessAt ??= now;
    this.successesSince++;
    this.spacingMs *= SPEED_UP_PER_SUCCESS;
  }

  onRateLimited(now: number, retryAfterMs: number): void {
    if (this.successesSince > 0) {
      // A cycle runs from one rate limit to the next, its pause included. The first has
      // no start: its successes, plus the pause the dependency asked for, stand for one.
      const cycleMs = this.lastRateLimitAt !== undefined ? now - this.lastRateLimitAt : now - (this.firstSuccessAt ?? now) + retryAfterMs;
      this.spacingMs = (SLOWER_THAN_ADMITTED * cycleMs) / this.successesSince;
    }
    this.lastRateLimitAt = now;
    this.successesSince = 0;
  }

  /** When the next dispatch may go, if not now. */
  nextAt(now: number): number | undefined {
    return this.spacingMs >= 1 && now < this.nextDispatchAt ? this.nextDispatchAt : undefined;
  }

  dispatched(now: number): void {
    this.nextDispatchAt = Math.max(now, this.nextDispatchAt) + this.spacingMs;
  }
}
