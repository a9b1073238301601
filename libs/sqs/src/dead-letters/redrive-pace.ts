/**
 * A redrive's schedule at its set rate, phase by phase. Each phase (the canary, then the
 * rest) starts its own clock at its first batch: the watch between them is no debt to catch
 * up on in a burst. The achieved rate counts the sending alone, from each phase's first
 * batch to the end of its last one's share of the rate.
 */
export class RedrivePace {
  private origin = 0;
  private scheduled = 0;
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private lastShareMs = 0;
  /** Sending time of the phases before this one. */
  private closedMs = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new phase: its first batch goes at once, and the rest follow at the rate from there. */
  startPhase(): void {
    this.closedMs += this.phaseMs();
    this.scheduled = 0;
    this.first = Number.POSITIVE_INFINITY;
    this.last = Number.NEGATIVE_INFINITY;
    this.lastShareMs = 0;
  }

  /** When a batch of `size`, taken now, is due. */
  dueFor(size: number): number {
    if (this.scheduled === 0) this.origin = this.now();
    const due = this.origin + (this.scheduled * 1000) / this.perSecond;
    this.scheduled += size;
    return due;
  }

  /** A batch of `size` went out at `at`; batches under way at once may report out of order. */
  wentOut(at: number, size: number): void {
    this.first = Math.min(this.first, at);
    if (at >= this.last) {
      this.last = at;
      this.lastShareMs = (size * 1000) / this.perSecond;
    }
  }

  /** When the latest batch went out, if any has. */
  get lastSentAt(): number | undefined {
    return this.last === Number.NEGATIVE_INFINITY ? undefined : this.last;
  }

  /** Messages a second over the sending of `sent` messages; null under two. */
  achieved(sent: number): number | null {
    const spanMs = this.closedMs + this.phaseMs();
    return sent >= 2 && spanMs > 0 ? (sent * 1000) / spanMs : null;
  }

  private phaseMs(): number {
    return this.last >= this.first ? this.last - this.first + this.lastShareMs : 0;
  }
}
