import { describe, expect, it } from 'vitest';
import { startRedis } from '../support/redis.js';
import { runRestartScenario } from './scenarios.js';

const MAX_IN_FLIGHT = 20;
/**
 * 1,000 mixed messages, a worker signalled 0.3-1.5 s after each start: enough that every
 * signal finds messages in flight. These prove it of the real process and its signals; the
 * seeded simulation (`npm run sim`) crashes the engine at every point between two calls, and
 * `npm run test:soak` runs 20,000 messages with 40 kills.
 */
const MESSAGES = 1000;
const KILLS = 5;
const RUN = { messages: MESSAGES, maxInFlight: MAX_IN_FLIGHT, uptimeMs: [300, 1500] as [number, number], maxDurationMs: 200, timeoutMs: 120_000 };

describe('fault tolerance: worker restarts with exact accounting', () => {
  it('crash loop: 1,000 messages, 5 SIGKILLs at random moments; nothing lost, duplicates within kills × 2 × maxInFlight', async () => {
    const report = await runRestartScenario({ ...RUN, restarts: KILLS, signal: 'SIGKILL', seed: 7 });
    console.info(`crash loop: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
    expect(report.accounting.lost).toEqual([]);
    expect(report.accounting.misplaced).toEqual([]);
    expect(report.accounting.succeeded + report.accounting.deadLettered['non-retryable']!).toBe(MESSAGES);
    // A kill can repeat every message it held: up to maxInFlight running and as many whose delete was under way.
    expect(report.accounting.duplicates).toBeLessThanOrEqual(KILLS * 2 * MAX_IN_FLIGHT);
  }, 240_000);

  it('graceful restarts: 1,000 messages, 4 SIGTERMs at random moments; nothing lost, no duplicates, every exit clean', async () => {
    const report = await runRestartScenario({ ...RUN, restarts: 4, signal: 'SIGTERM', seed: 11 });
    console.info(`graceful restarts: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
    expect(report.notes).toEqual([]);
    expect(report.accounting.lost).toEqual([]);
    expect(report.accounting.misplaced).toEqual([]);
    // An in-flight message either finishes or is released at shutdown, never both.
    expect(report.accounting.duplicates).toBe(0);
    expect(report.accounting.deadLetterDuplicates).toBe(0);
  }, 240_000);

  it('crash loop with idempotency on (a real Redis): 1,000 messages, 5 SIGKILLs; nothing lost or misplaced', async () => {
    const redis = await startRedis();
    try {
      const report = await runRestartScenario({ ...RUN, restarts: KILLS, signal: 'SIGKILL', seed: 7, idempotency: redis.url });
      console.info(`crash loop, idempotency on: ${JSON.stringify(report.accounting)} in ${report.durationSeconds} s`);
      expect(report.accounting.lost).toEqual([]);
      expect(report.accounting.misplaced).toEqual([]);
      expect(report.accounting.succeeded + report.accounting.deadLettered['non-retryable']!).toBe(MESSAGES);
      // Only a kill between a handler's effect and its completed record can repeat it: at
      // most the messages running at that moment. How many are in that window at a kill
      // grows with the machine's load (docs/reliability.md).
      expect(report.accounting.duplicates).toBeLessThanOrEqual(KILLS * MAX_IN_FLIGHT);
    } finally {
      await redis.stop();
    }
  }, 300_000);
});
