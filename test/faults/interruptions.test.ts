import { describe, expect, it } from 'vitest';
import { runInterruptionScenario } from './interruptions.js';

describe('fault tolerance: Spot interruptions and scale-in on a fleet with task protection', () => {
  it('stops no busy task on scale-in, cuts no handler that fits the warning, loses nothing, and protects once per busy period', async () => {
    // An ECS second of 60 ms: a 90 s handler then has 1.8 s of real time to spare within
    // Spot's 120 s warning, enough for a worker's exit beside the suite's other files
    // (at 40 ms, one run in five with three files at once killed a task).
    const report = await runInterruptionScenario({ spotInterruptions: 10, protection: true, seed: 50, secondMs: 60 });
    console.info(`interruptions: ${JSON.stringify(report)}`);
    expect(report.spotInterruptions).toBe(10);
    expect(report.scaleInStops).toBeGreaterThan(0);
    expect(report.busyScaleInStops).toBe(0);
    expect(report.cutRuns).toBe(0);
    expect(report.killedTasks).toBe(0);
    expect(report.lost).toBe(0);
    expect(report.deadLettered).toBe(0);
    expect(report.busyPeriods).toBeGreaterThan(0);
    // One call per transition, never per message: an enable and a clear per busy period, and
    // at most those two again for a task stopped between its enable and its first handler.
    expect(report.protectionCalls).toBeLessThanOrEqual(2 * (report.busyPeriods + report.spotInterruptions + report.scaleInStops));
    expect(report.callsPerMessage).toBeLessThan(0.5);
  }, 300_000);
});
