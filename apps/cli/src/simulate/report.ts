import type { TrafficProfile } from './profile.js';
import type { SimulationRun } from './run.js';

/** SQS's price per million requests (us-east-1, first tier): a batch of up to ten, under 64 KiB, is one request. */
const USD_PER_MILLION_REQUESTS = 0.4;

/** One policy's outcome, as `--json` prints it (docs/contracts.md). */
export interface SimulationSummary {
  policy: string;
  published: number;
  succeeded: number;
  deadLettered: { total: number; byReason: Record<string, number> };
  redrivenBySqs: number;
  unfinished: number;
  timeToSuccessSeconds: { p50: number | null; p99: number | null; max: number | null };
  timeToSuccessByTenant: Record<string, { p50: number | null; p99: number | null }>;
  attempts: { mean: number | null; max: number };
  downstream: { calls: number; callsPerMessage: number | null; peakPerSecond: number; capacityPerSecond: number | null };
  sqs: { calls: Record<string, number>; callsPerMessage: number | null; usdPerMillionMessages: number | null };
  virtualSeconds: number;
  wallSeconds: number;
}

function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000);
const perMessage = (n: number, messages: number) => (messages === 0 ? null : Math.round((n / messages) * 1000) / 1000);

function timeToSuccess(ms: number[]) {
  const sorted = Float64Array.from(ms).sort();
  return { p50: seconds(percentile(sorted, 50)), p99: seconds(percentile(sorted, 99)), max: seconds(sorted.at(-1) ?? null) };
}

/** The figures a run's counts come to. */
export function summarise(policy: string, profile: TrafficProfile, run: SimulationRun, wallMs: number): SimulationSummary {
  const deadLettered = Object.values(run.deadLettered).reduce((sum, n) => sum + n, 0);
  const sqsCalls = Object.values(run.sqsCalls).reduce((sum, n) => sum + n, 0);
  const attempts = run.attempts.reduce((sum, n) => sum + n, 0);
  return {
    policy,
    published: run.published,
    succeeded: run.succeeded,
    deadLettered: { total: deadLettered, byReason: run.deadLettered },
    redrivenBySqs: run.redriven,
    unfinished: run.unfinished,
    timeToSuccessSeconds: timeToSuccess(run.timeToSuccessMs),
    timeToSuccessByTenant: Object.fromEntries(
      Object.entries(run.timeToSuccessByTenant).map(([tenant, ms]) => {
        const { p50, p99 } = timeToSuccess(ms);
        return [tenant, { p50, p99 }];
      }),
    ),
    attempts: { mean: perMessage(attempts, run.attempts.length), max: run.attempts.reduce((most, n) => Math.max(most, n), 0) },
    downstream: {
      calls: run.downstreamCalls,
      callsPerMessage: perMessage(run.downstreamCalls, run.published),
      peakPerSecond: run.peakCallsPerSecond,
      capacityPerSecond: profile.dependency.capacityPerSecond ?? null,
    },
    sqs: {
      calls: run.sqsCalls,
      callsPerMessage: perMessage(sqsCalls, run.published),
      usdPerMillionMessages: run.published === 0 ? null : Math.round((sqsCalls / run.published) * USD_PER_MILLION_REQUESTS * 100) / 100,
    },
    virtualSeconds: run.virtualSeconds,
    wallSeconds: Math.round(wallMs / 100) / 10,
  };
}

const number = (n: number | null, unit = '') => (n === null ? '-' : `${n.toLocaleString('en-US')}${unit}`);

function reasons(byReason: Record<string, number>): string {
  const entries = Object.entries(byReason).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? '' : ` (${entries.map(([reason, n]) => `${reason} ${n.toLocaleString('en-US')}`).join(', ')})`;
}

function rows(summary: SimulationSummary): Array<[string, string]> {
  const { downstream, sqs } = summary;
  const tenants = Object.entries(summary.timeToSuccessByTenant).map(([tenant, t]): [string, string] => [
    `  tenant ${tenant}: p50 / p99`,
    `${number(t.p50, ' s')} / ${number(t.p99, ' s')}`,
  ]);
  return [
    ['published', number(summary.published)],
    ['succeeded', number(summary.succeeded)],
    ['dead-lettered', `${number(summary.deadLettered.total)}${reasons(summary.deadLettered.byReason)}`],
    ['moved by SQS redrive (no reason)', number(summary.redrivenBySqs)],
    ['unfinished after 12 h', number(summary.unfinished)],
    ['time to success p50 / p99', `${number(summary.timeToSuccessSeconds.p50, ' s')} / ${number(summary.timeToSuccessSeconds.p99, ' s')}`],
    ...tenants,
    ['attempts per message: mean, max', `${number(summary.attempts.mean)}, ${summary.attempts.max}`],
    ['downstream calls per message', number(downstream.callsPerMessage)],
    [
      'peak downstream calls/s',
      `${number(downstream.peakPerSecond)}${downstream.capacityPerSecond === null ? '' : ` (capacity ${number(downstream.capacityPerSecond)})`}`,
    ],
    ['SQS calls per message', number(sqs.callsPerMessage)],
    ['SQS cost per million messages', sqs.usdPerMillionMessages === null ? '-' : `$${sqs.usdPerMillionMessages.toFixed(2)}`],
    ['virtual time / wall time', `${number(Math.round(summary.virtualSeconds))} s / ${summary.wallSeconds} s`],
  ];
}

/** The summaries side by side, a column per policy. */
export function formatSummaries(summaries: readonly SimulationSummary[]): string {
  const table = summaries.map(rows);
  const labels = table[0]!.map(([label]) => label);
  const header = ['', ...summaries.map((summary) => summary.policy)];
  const lines = [header, ...labels.map((label, i) => [label, ...table.map((column) => column[i]![1])])];
  const widths = header.map((_, col) => Math.max(...lines.map((line) => line[col]!.length)));
  return lines
    .map((line) =>
      line
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
