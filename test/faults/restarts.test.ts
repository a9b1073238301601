import { describe, expect, it } from 'vitest';
import { startRedis } from '../support/redis.js';
import { runRestartScenario } from './scenarios.js';

const MAX_IN_FLIGHT = 20;
/** 3,000 mixed messages, a worker signalled 0.5-2.5 s after each start. */
const RUN = { messages: 3000, maxInFlight: MAX_IN_FLIGHT, uptimeMs: [500, 2500] as [number, number], maxDurationMs: 200, timeoutMs: 120_000 };

describe('fault tolerance: worker restarts with exact accounting', () => {
  it('crash loop: 3,000 messages, 15 SIGKILLs at random moments; nothing lost, duplicates within kills × 2 × maxInFlight', async () => {
    const report = await runRestartScenario({ ...RUN, restarts: 15, signal: 'SIGKILL', seed: 7 });
    console.info(`crash loop: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
    expect(report.accounting.lost).toEqual([]);
    expect(report.accounting.misplaced).toEqual([]);
    expect(report.accounting.succeeded + report.accounting.deadLettered['non-retryable']!).toBe(3000);
    // A kill can repeat every message it held: up to maxInFlight running and as many whose delete was under way.
    expect(report.accounting.duplicates).toBeLessThanOrEqual(15 * 2 * MAX_IN_FLIGHT);
  }, 240_000);

  it('graceful restarts: 3,000 messages, 10 SIGTERMs at random moments; nothing lost, no duplicates, every exit clean', async () => {
    const report = await runRestartScenario({ ...RUN, restarts: 10, signal: 'SIGTERM', seed: 11 });
    console.info(`graceful restarts: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
    expect(report.notes).toEqual([]);
    expect(report.accounting.lost).toEqual([]);
    expect(report.accounting.misplaced).toEqual([]);
    // An in-flight message either finishes or is released at shutdown, never both.
    expect(report.accounting.duplicates).toBe(0);
    expect(report.accounting.deadLetterDuplicates).toBe(0);
  }, 240_000);

  it('crash loop with idempotency on (a real Redis): 3,000 messages, 15 SIGKILLs; nothing lost or misplaced', async () => {
    const redis = await startRedis();
    try {
      const report = await runRestartScenario({ ...RUN, restarts: 15, signal: 'SIGKILL', seed: 7, idempotency: redis.url });
      console.info(`crash loop, idempotency on: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
      expect(report.accounting.lost).toEqual([]);
      expect(report.accounting.misplaced).toEqual([]);
      expect(report.accounting.succeeded + report.accounting.deadLettered['non-retryable']!).toBe(3000);
      // Only a kill between a handler's effect and its completed record can repeat it.
      expect(report.accounting.duplicates).toBeLessThanOrEqual(15);
    } finally {
      await redis.stop();
    }
  }, 300_000);
});
