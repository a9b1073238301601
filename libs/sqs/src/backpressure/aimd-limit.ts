/**
 * Once no overload has come for this long, the limit grows by one a success (doubling
 * each round of calls, as TCP's slow start does) back to its maximum: recovery takes a
 * few round trips, not the thousand successes additive increase needs from 1 to 50.
 */
export const RECOVERY_QUIET_MS = 5000;

/**
 * Additive increase, multiplicative decrease, as TCP does for its window: each success
 * adds 1 / limit (one slot per limit's worth of successes), each overload signal
 * (429, 503) multiplies by `decreaseFactor`. One burst of rejections counts once: only a
 * call that started after the last decrease may decrease it again. After
 * `RECOVERY_QUIET_MS` without one, each success adds a whole slot.
 */
export class AimdLimit {
  private value: number;
  private lastDecreaseAt = -Infinity;

  constructor(
    private readonly bounds: { min: number; max: number; decreaseFactor: number },
    private readonly now: () => number,
  ) {
    this.value = bounds.max;
  }

  /** Calls allowed at once. */
  get current(): number {
    return Math.max(this.bounds.min, Math.floor(this.value));
  }

  onSuccess(): void {
    const quiet = this.now() - this.lastDecreaseAt >= RECOVERY_QUIET_MS;
    this.value = Math.min(this.bounds.max, this.value + (quiet ? 1 : 1 / Math.max(1, this.value)));
  }

  onOverload(startedAt: number): void {
    if (startedAt < this.lastDecreaseAt) return;
    this.value = Math.max(this.bounds.min, this.value * this.bounds.decreaseFactor);
    this.lastDecreaseAt = this.now();
  }
}
