import { describe, expect, it } from 'vitest';
import { runInterruptionScenario } from './interruptions.js';

describe('fault tolerance: Spot interruptions and scale-in on a fleet with task protection', () => {
  it('stops no busy task on scale-in, cuts no handler that fits the warning, loses nothing, and protects once per busy period', async () => {
    const report = await runInterruptionScenario({ spotInterruptions: 15, protection: true, seed: 50 });
    console.info(`interruptions: ${JSON.stringify(report)}`);
    expect(report.spotInterruptions).toBe(15);
    expect(report.scaleInStops).toBeGreaterThan(0);
    expect(report.busyScaleInStops).toBe(0);
    expect(report.cutRuns).toBe(0);
    expect(report.killedTasks).toBe(0);
    expect(report.lost).toBe(0);
    expect(report.deadLettered).toBe(0);
    expect(report.busyPeriods).toBeGreaterThan(0);
    // An enable and a clear per busy period, a little less where a stop's clear was cut short.
    expect(report.callsPerBusyPeriod).toBeLessThanOrEqual(2);
  }, 300_000);
});
