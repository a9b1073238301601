/**
 * `npm run bench:engine-latency`: how much of an SQS round trip the engine hides when CPU
 * is not what binds it. The engine alone (no HTTP, no emulator) against an in-memory queue
 * whose every call answers after 0, 15 or 30 ms, a 5 ms handler @50, at the default
 * prefetch and at two and four times it, each run its own process, in rounds; and at the
 * default, calls that answer anywhere in 10-20 ms, as a region's round trips spread, and
 * handlers that slow from 5 ms to 500 ms for the last messages (a degrading dependency). The peer
 * bench's latency rows measure a whole worker beside the emulator on the same cores,
 * where the CPU runs out first; these rows show the bound that prefetch itself sets. The
 * queue counts receives and redrives as SQS does (maxReceiveCount 5), so the rows also
 * show whether messages given back unstarted ever reach the DLQ without running.
 */
import { progress, wantsJson } from '../report.js';
import { summarizeRuns } from '../peers/measurement.js';
import { inRounds, type RunResult, type RunSpec } from './runs.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const messages = quick ? 2_000 : 50_000;
const rounds = quick ? 1 : 3;
const MAX_IN_FLIGHT = 50;
/** The messages run at the slowdown's 500 ms: 10 s of the worker's time at 50, 1 s in a quick run. */
const SLOW_MESSAGES = quick ? 100 : 1_000;
const base = { tracing: 'off', tracedIn: false, messages, handlerMs: 5, maxInFlight: MAX_IN_FLIGHT } as const;
const specs: RunSpec[] = [
  ...[undefined, 2 * MAX_IN_FLIGHT, 4 * MAX_IN_FLIGHT].flatMap((prefetch) =>
    [0, 15, 30].map((latencyMs) => ({ ...base, latencyMs, ...(prefetch === undefined ? {} : { prefetch }) })),
  ),
  { ...base, latencyMs: 15, latencySpreadMs: 5 },
  // A dependency that degrades: the lookahead has grown to the 5 ms handlers when they slow a hundredfold.
  { ...base, latencyMs: 15, slowdown: { lastMessages: SLOW_MESSAGES, handlerMs: 500 } },
];
const results = await inRounds(specs, rounds, (round) =>
  progress(`round ${round + 1} of ${rounds}: ${specs.length} runs of ${messages.toLocaleString('en-US')} messages`),
);
const medianOf = (i: number, pick: (result: RunResult) => number): number => summarizeRuns(results[i]!.map(pick)).median;
const rows = specs.map((spec, i) => ({
  prefetch: spec.prefetch ?? MAX_IN_FLIGHT,
  latencyMs: spec.latencyMs,
  latencySpreadMs: spec.latencySpreadMs ?? 0,
  ...(spec.slowdown === undefined ? {} : { slowdown: spec.slowdown }),
  messagesPerSecond: medianOf(i, (r) => r.messagesPerSecond),
  givenBackPerMessage: medianOf(i, (r) => r.givenBackPerMessage),
  callsPerMessage: medianOf(i, (r) => r.callsPerMessage),
  cpuMicrosPerMessage: medianOf(i, (r) => r.cpuMicrosPerMessage),
  // The worst round, and every round's: one message redriven unrun is one too many.
  mostReceives: Math.max(...results[i]!.map((r) => r.mostReceives)),
  redriven: results[i]!.reduce((sum, r) => sum + r.redriven, 0),
}));

function table(): string {
  const lines = [
    '| prefetch | every SQS call | messages/s (median) | vs the same prefetch at 0 ms | SQS calls per message | given back per message | most receives of one message | redriven unrun (all rounds) | engine CPU per message (µs) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const loopback = rows.find((r) => r.prefetch === row.prefetch && r.latencyMs === 0)!;
    const spread = row.latencySpreadMs > 0 ? ` ± ${row.latencySpreadMs}` : '';
    const slowdown = row.slowdown === undefined ? '' : `, the last ${row.slowdown.lastMessages.toLocaleString('en-US')} handlers ${row.slowdown.handlerMs} ms`;
    // A run whose handlers slow down is not comparable with one whose handlers do not.
    const ratio = row.slowdown === undefined ? `${(row.messagesPerSecond / loopback.messagesPerSecond).toFixed(2)}×` : 'n/a';
    lines.push(
      `| ${row.prefetch} | ${row.latencyMs}${spread} ms${slowdown} | ${row.messagesPerSecond.toFixed(0)} | ${ratio} | ${row.callsPerMessage.toFixed(3)} | ${row.givenBackPerMessage.toFixed(4)} | ${row.mostReceives} | ${row.redriven} | ${row.cpuMicrosPerMessage.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

process.stdout.write(wantsJson(argv) ? `${JSON.stringify(rows, null, 2)}\n` : `${table()}\n`);
