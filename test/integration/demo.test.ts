import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { DemoSummary } from '../../apps/demo/src/report.js';

const DEMO = fileURLToPath(new URL('../../apps/demo/dist/main.js', import.meta.url));

describe.concurrent('requeue demo', () => {
  it('--json prints one document accounting for every published message, and exits 0', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [DEMO, '--json'], { env: { PATH: process.env.PATH } });
    const summary = JSON.parse(stdout) as DemoSummary;
    expect(summary.lost).toEqual([]);
    expect(summary.succeeded + summary.deadLettered.total).toBe(summary.published);
    expect(summary.deadLettered.byReason).toEqual({ 'non-retryable': 6, 'handler-bug': 2, 'max-attempts': 2, 'deadline-exceeded': 2 });
    expect(Object.values(summary.attempts.histogram).reduce((a, b) => a + b, 0)).toBe(summary.published);
    expect(new Set(summary.retries.map((r) => r.errorType))).toEqual(new Set(['TEMPORARY', 'RATE_LIMIT', 'QUOTA_EXCEEDED']));
    // Retry-After: 2 s is honoured, not shortened by the 1 s backoff.
    expect(summary.retries.filter((r) => r.errorType === 'RATE_LIMIT').every((r) => r.delaySeconds >= 2)).toBe(true);
    expect(summary.durationSeconds).toBeLessThan(60);
    // Progress went to stderr, a line per second, each message counted once on every line.
    const lines = [...stderr.matchAll(/succeeded (\d+) +dead-lettered (\d+) +retrying (\d+) +first attempt (\d+) +\/ 40/g)];
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines)
      expect(
        line
          .slice(1, 5)
          .map(Number)
          .reduce((a, b) => a + b),
      ).toBe(40);
    expect(lines.at(-1)!.slice(1, 5).map(Number)).toEqual([summary.succeeded, summary.deadLettered.total, 0, 0]);
    expect(new Set(summary.retries.map((r) => r.kind))).toEqual(new Set(['retry', 'deferral']));
  }, 90_000);

  it("--fifo runs the stack's FIFO variant: every message accounted for and each group's successes in publish order", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [DEMO, '--fifo', '--json'], { env: { PATH: process.env.PATH } });
    const summary = JSON.parse(stdout) as DemoSummary;
    expect(summary.lost).toEqual([]);
    expect(summary.unexpected).toEqual([]);
    expect(summary.deadLettered.byReason).toEqual({ 'non-retryable': 6, 'handler-bug': 2, 'max-attempts': 2, 'deadline-exceeded': 2 });
    expect(summary.fifo).toEqual({ groups: 4, inOrder: 4 });
  }, 90_000);
});
