import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { createRetryPolicy } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { runSimulateCommand } from './command.js';
import { parseTrafficProfile } from './profile.js';
import { summarise, type SimulationSummary } from './report.js';
import { runSimulation } from './run.js';

function capture(): { io: CliIo; out: string[] } {
  const out: string[] = [];
  return { io: { out: (text) => out.push(text), err: () => undefined, env: {}, ask: undefined }, out };
}

async function simulateJson(args: string[]): Promise<{ runs: Array<SimulationSummary & { series: Array<Record<string, number>> }> }> {
  const { io, out } = capture();
  await runSimulateCommand([...args, '--json'], io);
  return JSON.parse(out.join('\n')) as { runs: Array<SimulationSummary & { series: Array<Record<string, number>> }> };
}

const ended = (run: SimulationSummary) => run.succeeded + run.deadLettered.total + run.redrivenBySqs + run.unfinished;

describe('requeue simulate: the profile', () => {
  it('takes defaults for what it leaves out', () => {
    const profile = parseTrafficProfile({});
    expect(profile).toMatchObject({ durationSeconds: 600, traffic: [{ ratePerSecond: 50, startSeconds: 0 }], handlerMs: 50, seed: 1 });
    expect(profile.worker).toEqual({ workers: 1, maxInFlight: 50, handlerTimeoutMs: 30_000, tenants: false });
  });

  it.each([
    [{ rate: 10 }, 'the profile has no setting "rate"; it takes durationSeconds, traffic'],
    [{ traffic: [{ ratePerSecond: -1 }] }, "the profile's traffic[0].ratePerSecond must be a number from 0.001 to 10000, got -1"],
    [
      { dependency: { outages: [{ startSeconds: 1, durationSeconds: 5, answer: '502' }] } },
      'dependency.outages[0].answer must be "503" or "timeout", got "502"',
    ],
    [{ worker: { maxInFlight: 2.5 } }, 'worker.maxInFlight must be a whole number from 1 to 10000, got 2.5'],
    [[], "the profile's top level must be a JSON object, got []"],
  ])('refuses %j, naming the setting', (raw, message) => {
    expect(() => parseTrafficProfile(raw)).toThrow(CliUsageError);
    expect(() => parseTrafficProfile(raw)).toThrow(message);
  });

  it('refuses a policy RETRY_POLICY would refuse, and a file that is not JSON', async () => {
    await expect(simulateJson(['--policy', '{"maxAttempts":0}'])).rejects.toThrow(/--policy inline: .*maxAttempts/);
    await expect(simulateJson(['--profile', '{"traffic": ['])).rejects.toThrow(/--profile JSON is not valid JSON/);
  });
});

describe('requeue simulate: a run', () => {
  const mixed = JSON.stringify({
    durationSeconds: 60,
    traffic: [{ ratePerSecond: 20 }],
    handlerMs: 20,
    failures: { permanent: 0.05, transient: 0.2 },
    seed: 7,
  });

  it('accounts for every message: each succeeds or is dead-lettered with its reason, and a seed gives the same run', async () => {
    const [first, again] = await Promise.all([simulateJson(['--profile', mixed]), simulateJson(['--profile', mixed])]);
    const run = first.runs[0]!;
    expect(run.published).toBe(1200);
    expect(ended(run)).toBe(run.published);
    expect(run.unfinished).toBe(0);
    expect(run.redrivenBySqs).toBe(0);
    // 5% fail on every call: dead-lettered as non-retryable at once; 20% of calls fail once and are retried.
    expect(run.deadLettered.byReason['non-retryable']).toBeGreaterThan(30);
    expect(run.deadLettered.byReason['non-retryable']).toBeLessThan(100);
    expect(run.attempts.mean).toBeGreaterThan(1.1);
    expect({ ...again.runs[0], wallSeconds: 0 }).toEqual({ ...run, wallSeconds: 0 });
  });

  it('runs each policy on the same traffic: a deadline shorter than the outage dead-letters what it holds', async () => {
    const outage = JSON.stringify({
      durationSeconds: 240,
      traffic: [{ ratePerSecond: 10 }],
      dependency: { outages: [{ startSeconds: 30, durationSeconds: 150, answer: '503' }] },
    });
    const { runs } = await simulateJson(['--profile', outage, '--policy', 'preset', '--policy', '{"deadlineSeconds": 60}']);
    const [preset, impatient] = runs;
    expect(preset!.policy).toBe('shipped preset');
    expect(impatient!.policy).toBe('policy 2');
    expect(preset!.deadLettered.total).toBe(0);
    expect(preset!.succeeded).toBe(preset!.published);
    expect(impatient!.deadLettered.byReason['deadline-exceeded']).toBeGreaterThan(0);
    expect(ended(impatient!)).toBe(impatient!.published);
    // The outage shows in the series: calls stop but for the breaker's probes, then the backlog drains.
    const during = preset!.series.filter((point) => point.second >= 60 && point.second < 170);
    expect(during.reduce((sum, point) => sum + point.calls!, 0)).toBeLessThan(during.length * 2);
    expect(preset!.timeToSuccessSeconds.max).toBeGreaterThan(100);
  });

  it('holds a dependency to its capacity with 429s and Retry-After, and counts the peak against it', async () => {
    const limited = JSON.stringify({ durationSeconds: 60, traffic: [{ ratePerSecond: 100 }], dependency: { capacityPerSecond: 60, retryAfterSeconds: 1 } });
    const run = (await simulateJson(['--profile', limited])).runs[0]!;
    expect(run.downstream.capacityPerSecond).toBe(60);
    expect(run.series.some((point) => point.rateLimited! > 0)).toBe(true);
    expect(run.deadLettered.total).toBe(0);
    expect(run.succeeded).toBe(run.published);
  });

  it('reports each tenant: taking turns by tenant, the quiet one waits less behind the bulk one', async () => {
    const profile = (tenants: boolean) =>
      JSON.stringify({
        durationSeconds: 30,
        traffic: [
          { ratePerSecond: 150, tenant: 'bulk' },
          { ratePerSecond: 2, tenant: 'quiet' },
        ],
        handlerMs: 100,
        worker: { maxInFlight: 10, tenants },
      });
    const [turns, none] = await Promise.all([simulateJson(['--profile', profile(true)]), simulateJson(['--profile', profile(false)])]);
    const byTenant = turns.runs[0]!.timeToSuccessByTenant;
    expect(Object.keys(byTenant).sort()).toEqual(['bulk', 'quiet']);
    expect(byTenant.quiet!.p50!).toBeLessThan(byTenant.bulk!.p50!);
    // Without turns, the quiet tenant's messages wait in line behind the bulk backlog.
    expect(byTenant.quiet!.p50!).toBeLessThan(none.runs[0]!.timeToSuccessByTenant.quiet!.p50!);
  });

  it('writes the chart: a panel per policy, the outage shaded', async () => {
    const svg = join(mkdtempSync(join(tmpdir(), 'requeue-simulate-')), 'run.svg');
    const { io, out } = capture();
    const profile = JSON.stringify({ durationSeconds: 30, dependency: { outages: [{ startSeconds: 10, durationSeconds: 5 }] } });
    await runSimulateCommand(['--profile', profile, '--policy', 'preset', '--policy', '{"maxAttempts": 3}', '--svg', svg], io);
    const text = readFileSync(svg, 'utf8');
    expect(text).toMatch(/^<svg /);
    expect(text.match(/<polyline /g)).toHaveLength(10);
    expect(text).toContain('fill="#f3d6d6"');
    expect(out.join('\n')).toMatch(/^ +shipped preset +policy 2\npublished +1,500 +1,500/);
  });
});

// Found by a simulated outage: two workers gave one message back and forth at the same
// instant, each receive a count, until SQS's redrive took it without a reason.
describe('requeue simulate: what SQS moves out unrun', () => {
  it('is nothing, with two workers through an outage', async () => {
    const profile = parseTrafficProfile({
      durationSeconds: 60,
      traffic: [{ ratePerSecond: 200 }],
      handlerMs: 80,
      failures: { permanent: 0.001, transient: 0.01 },
      dependency: { capacityPerSecond: 300, retryAfterSeconds: 2, outages: [{ startSeconds: 30, durationSeconds: 100 }] },
      worker: { workers: 2 },
    });
    const run = await runSimulation(profile, createRetryPolicy(), MemorySqs);
    const summary = summarise('preset', profile, run, 0);
    // Before the fix, 36 of the 12,000.
    expect(summary).toMatchObject({ redrivenBySqs: 0, unfinished: 0 });
    expect(summary.succeeded + summary.deadLettered.total).toBe(run.published);
  }, 60_000);
});
