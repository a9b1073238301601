/**
 * The tenants seen lately, to tell a worker serving several tenants from one serving one.
 * A map in least-recently-seen order: seeing a tenant moves it to the end, and tenants
 * unseen for `windowMs` fall off the front, so each call costs O(1) amortized and the
 * map never holds more than the tenants of one window (bounded by `maxTracked` as well).
 */
export class RecentTenants {
  private readonly lastSeen = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly windowMs = 60_000,
    private readonly maxTracked = 10_000,
  ) {}

  seen(tenant: string): void {
    this.lastSeen.delete(tenant);
    this.lastSeen.set(tenant, this.now());
    if (this.lastSeen.size > this.maxTracked) this.lastSeen.delete(this.lastSeen.keys().next().value!);
  }

  /** More than one tenant was seen within the window. */
  get several(): boolean {
    const since = this.now() - this.windowMs;
    for (const [tenant, at] of this.lastSeen) {
      if (at >= since) break;
      this.lastSeen.delete(tenant);
    }
    return this.lastSeen.size > 1;
  }
}
