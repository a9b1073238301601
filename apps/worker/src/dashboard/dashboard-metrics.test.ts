import { describe, expect, it } from 'vitest';
import { allMetrics, DashboardMetrics } from './dashboard-metrics.js';

describe('DashboardMetrics', () => {
  it('counts per second, by errorType and reason, with idle seconds filled in', () => {
    let now = 1_000_000;
    const metrics = new DashboardMetrics(() => now, 5);
    metrics.succeeded();
    metrics.retried('TEMPORARY', 1);
    now += 2000;
    metrics.retried('RATE_LIMIT', 60);
    metrics.retried('TEMPORARY', 3);
    metrics.deadLettered('max-attempts');
    metrics.deferred('breaker-open');
    metrics.deferred('rate-limited', 'RATE_LIMIT');
    metrics.deferred('rate-limited', 'QUOTA_EXCEEDED');
    const { seconds, totals, byErrorType } = metrics.snapshot();
    expect(seconds.map((s) => s.second)).toEqual([998, 999, 1000, 1001, 1002]);
    expect(seconds[2]).toEqual({ second: 1000, succeeded: 1, retried: { TEMPORARY: 1 }, deadLettered: {} });
    expect(seconds[3]).toEqual({ second: 1001, succeeded: 0, retried: {}, deadLettered: {} });
    expect(seconds[4]).toEqual({ second: 1002, succeeded: 0, retried: { RATE_LIMIT: 1, TEMPORARY: 1 }, deadLettered: { 'max-attempts': 1 } });
    expect(totals).toEqual({ received: 0, succeeded: 1, retried: 3, deadLettered: 1, deferred: 3 });
    // By error type as the demo's report counts: retries, and deferrals whose handler ran.
    expect(byErrorType).toEqual({
      TEMPORARY: { retries: 2, deferrals: 0 },
      RATE_LIMIT: { retries: 1, deferrals: 1 },
      QUOTA_EXCEEDED: { retries: 0, deferrals: 1 },
    });
  });

  it('buckets retry delays by powers of two up to 900 s', () => {
    const metrics = new DashboardMetrics(() => 0);
    for (const delay of [0, 1, 2, 3, 4, 60, 900]) metrics.retried('X', delay);
    const histogram = Object.fromEntries(metrics.snapshot().delayHistogram.map((b) => [b.bucket, b.count]));
    expect(histogram).toMatchObject({ '0': 1, '1': 1, '2-3': 2, '4-7': 1, '32-63': 1, '512-900': 1 });
  });

  it('forgets seconds older than the window, so memory stays flat', () => {
    let now = 0;
    const metrics = new DashboardMetrics(() => now, 10);
    for (let i = 0; i < 1000; i++) {
      now = i * 1000;
      metrics.succeeded();
    }
    const { seconds } = metrics.snapshot();
    expect(seconds).toHaveLength(10);
    expect(seconds.every((s) => s.succeeded === 1)).toBe(true);
  });

  it('allMetrics reports to every sink', async () => {
    const a = new DashboardMetrics(() => 0);
    const b = new DashboardMetrics(() => 0);
    const both = allMetrics(a, b);
    both.succeeded(1, 5);
    both.deadLettered('handler-bug');
    await both.flush();
    expect(a.snapshot().totals).toEqual(b.snapshot().totals);
    expect(a.snapshot().totals).toMatchObject({ succeeded: 1, deadLettered: 1 });
  });
});
