/** How far back rejections count as one episode of rate limiting. */
const WINDOW_MS = 5000;
/**
 * The share of a window's calls that must be first 429s. A limit the dependency applies
 * to everyone, at twice what it admits, rejects half the calls; a few messages limited on
 * their own paths (a tenant's quota, one account's endpoint) are a small share of calls
 * that otherwise succeed, and must not pace every other message.
 */
const SYSTEMIC_SHARE = 0.25;

/**
 * Whether 429s say the dependency limits everyone, not some messages: `needed` messages
 * meeting their first 429 within five seconds, and at least a quarter of the calls that
 * ended meanwhile (unless one is all it needs). A single job pointed at a rate-limited path of a shared host (by a
 * careless or hostile publisher, every few seconds) is that message's to wait out, and
 * must not pause or pace the host for every other message. A message rejected again
 * counts no more: one message retrying is one message.
 */
export class RateLimitEvidence {
  private readonly rejections: number[] = [];
  private readonly successes: number[] = [];

  constructor(private readonly needed: number) {}

  /** A call that succeeded: the share of rejections is of all calls. */
  succeeded(now: number): void {
    this.successes.push(now);
    this.forget(now);
  }

  /** Records a 429; true once enough have come to act on the dependency. */
  record(now: number, firstRateLimit: boolean): boolean {
    if (firstRateLimit) this.rejections.push(now);
    this.forget(now);
    const rejected = this.rejections.length;
    // Needing one (`rateLimitEvidence: 1`) takes every 429 as the dependency's.
    return rejected >= this.needed && (this.needed === 1 || rejected >= SYSTEMIC_SHARE * (rejected + this.successes.length));
  }

  private forget(now: number): void {
    for (const times of [this.rejections, this.successes]) {
      let stale = 0;
      while (stale < times.length && now - times[stale]! > WINDOW_MS) stale++;
      if (stale > 0) times.splice(0, stale);
    }
  }
}
