import { describe, expect, it } from 'vitest';
import { runOutageScenario } from './scenarios.js';

describe('fault tolerance: the emulator goes away for 10 s', () => {
  it('the worker never exits, reports not-ready, logs with backoff, resumes on its own, and loses nothing', async () => {
    const report = await runOutageScenario({ messages: 1500, outageMs: 10_000, maxInFlight: 10, maxDurationMs: 60, seed: 3, timeoutMs: 120_000 });
    console.info(`outage: ${JSON.stringify({ ...report.accounting, logLines: report.receiveFailureLogLines })} in ${report.durationSeconds} s`);
    expect(report.workerExitedDuringRun).toBe(false);
    expect(report.reportedNotReady).toBe(true);
    expect(report.readyAgain).toBe(true);
    // Each receive loop logs its 1st, 2nd, 4th, 8th... failure: tens of lines, not thousands.
    expect(report.receiveFailureLogLines).toBeGreaterThan(0);
    expect(report.receiveFailureLogLines).toBeLessThanOrEqual(40);
    expect(report.accounting.lost).toEqual([]);
    expect(report.accounting.misplaced).toEqual([]);
  }, 180_000);
});
