import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { violationsOf } from './invariants.js';
import { runScenario } from './run-scenario.js';
import { scenarioOf, type Scenario } from './scenario.js';
import { runSeeds } from './seeds.js';

describe('the engine in virtual time, against a simulated SQS with seeded faults', () => {
  it('keeps every invariant over 100 seeds of mixed scenarios, with SQS faults and without', async () => {
    for (const withFaults of [true, false]) {
      const report = await runSeeds(1, 100, { withFaults });
      expect(report.violations).toEqual([]);
      expect(report.handlerRuns).toBeGreaterThan(2500);
    }
  }, 120_000);

  it("lets a message that alone keeps failing as the breaker's probe spend its attempts, so the others run (seed 58 stalled 12 h)", async () => {
    const record = await runScenario(scenarioOf(58, { withFaults: false }));
    expect(record.settled).toBe(true);
    expect(violationsOf(record)).toEqual([]);
    expect(record.virtualMs).toBeLessThan(3_600_000);
  });

  it("starts a quiet tenant's message at once when it arrives in the same receive as another tenant's burst on slow handlers", async () => {
    const slowBurst = {
      ...scenarioOf(3, { withFaults: false }),
      fifo: false,
      maxInFlight: 5,
      handlerTimeoutMs: 7_000,
      latencyMs: 4_000,
      workers: 1,
      outage: undefined,
      messages: Array.from({ length: 18 }, (_, i) => ({ id: `msg-${i}`, group: undefined, outcomes: ['ok' as const] })),
      tenants: { quiet: 2 },
    };
    const record = await runScenario(slowBurst);
    // Before the worker admitted a receive whole, the burst took all five handlers and the quiet tenant waited 4 s.
    expect(violationsOf(record)).toEqual([]);
    const quiet = record.runs.find((run) => run.id === 'msg-9')!;
    expect(quiet.at - record.runs[0]!.at).toBe(0);
  });

  it('runs several worker processes on one queue, none running more than its handlers, no message twice at once', async () => {
    const fleet = {
      ...scenarioOf(5, { withFaults: false }),
      fifo: false,
      workers: 3,
      maxInFlight: 2,
      latencyMs: 1_500,
      visibilityTimeoutSeconds: 1,
      messages: Array.from({ length: 30 }, (_, i) => ({ id: `msg-${i}`, group: undefined, outcomes: ['retryable' as const, 'ok' as const] })),
    };
    const record = await runScenario(fleet);
    expect(violationsOf(record)).toEqual([]);
    expect(record.peakLoad.perProcess).toBe(2);
    expect(record.peakLoad.fleet).toBeGreaterThan(2);
  });

  it('sends no more than a few copies a message when the visibility timeout is 1 s and SQS loses answers (1,508 sends for 30 messages before deferrals waited in place)', async () => {
    const scenario = JSON.parse(readFileSync(new URL('./regressions/copies-multiply.json', import.meta.url), 'utf8')) as Scenario;
    const record = await runScenario(scenario);
    expect(violationsOf(record)).toEqual([]);
    expect(record.sends).toBeLessThan(10 * scenario.messages.length);
  });

  it("keeps a FIFO group in order when a message's visibility runs out while the worker holds the group and SQS delivers it again (seed 3978)", async () => {
    const scenario = JSON.parse(readFileSync(new URL('./regressions/fifo-redelivered-head.json', import.meta.url), 'utf8')) as Scenario;
    const record = await runScenario(scenario);
    expect(violationsOf(record)).toEqual([]);
    // The scenario still does what made it fail: msg-23's heartbeat failed and SQS delivered it again.
    expect(record.forked).toContain('msg-23');
  });

  it('reruns a seed exactly: the same handler runs at the same virtual times, the same dead letters', async () => {
    const first = await runScenario(scenarioOf(42));
    const again = await runScenario(scenarioOf(42));
    expect(again.runs).toEqual(first.runs);
    expect(again.deadLetters).toEqual(first.deadLetters);
    expect(again.virtualMs).toBe(first.virtualMs);
  });

  it('reports a message a defect lost: a run whose handler success is never recorded breaks nothing-lost', async () => {
    const record = await runScenario(scenarioOf(7));
    const succeeded = record.runs.find((run) => run.outcome === 'ok')!;
    const withoutIt = { ...record, runs: record.runs.filter((run) => run.id !== succeeded.id), settled: false };
    expect(violationsOf(withoutIt).map((v) => v.invariant)).toContain('nothing-lost');
  });
});
