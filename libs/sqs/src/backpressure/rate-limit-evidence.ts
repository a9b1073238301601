/** How far back rejections count as one episode of rate limiting. */
const WINDOW_MS = 5000;

/**
 * Whether 429s say the dependency limits everyone, not one message: `needed` messages
 * meeting their first 429 within five seconds. A limit the dependency applies to all
 * rejects many messages at once; a single job pointed at a rate-limited path of a shared
 * host (by a careless or hostile publisher, every few seconds) is that message's to wait
 * out, and must not pause or pace the host for every other message. A message rejected
 * again counts no more: one message retrying is one message.
 */
export class RateLimitEvidence {
  private readonly rejections: number[] = [];

  constructor(private readonly needed: number) {}

  /** Records a 429; true once enough have come to act on the dependency. */
  record(now: number, firstRateLimit: boolean): boolean {
    if (firstRateLimit) this.rejections.push(now);
    while (this.rejections.length > 0 && now - this.rejections[0]! > WINDOW_MS) this.rejections.shift();
    return this.rejections.length >= this.needed;
  }
}
