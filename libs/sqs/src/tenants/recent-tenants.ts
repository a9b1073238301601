/**
 * Whether more than one tenant was seen lately, to tell a worker serving several tenants
 * from one serving one. O(1) a message, no map: it keeps the tenant seen last and when, and
 * when any other tenant was last seen: the time the tenant before it was seen last.
 */
export class RecentTenants {
  private latest: string | undefined;
  private latestAt = Number.NEGATIVE_INFINITY;
  private otherSeenAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = 60_000,
  ) {}

  seen(tenant: string): void {
    const now = this.now();
    if (tenant !== this.latest) {
      this.otherSeenAt = this.latestAt;
      this.latest = tenant;
    }
    this.latestAt = now;
  }

  /** A tenant other than the one seen last was seen within the window. */
  get several(): boolean {
    return this.now() - this.otherSeenAt <= this.windowMs;
  }
}
