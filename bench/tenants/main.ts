/**
 * `npm run bench:tenants`: one tenant's burst against another's steady trickle, on the
 * emulator (its own process), the worker in this one. Tenant B publishes 5 messages a
 * second for 4 s; in the runs with A, tenant A publishes 100 times that rate over the same
 * 4 s: 2,000 messages at what 10 handlers of 20 ms finish at best. Figure: B's p95 dwell
 * (SentTimestamp to handler start, pooled over the rounds) with and without A, tenants off
 * and on. Then what tenants on costs one tenant: the engine alone against an in-memory
 * queue (as `npm run bench:tracing` runs it), where a few percent stand out of the noise,
 * which on the emulator they do not. Runs rotate within each round. The tables go to
 * docs/benchmarks.md.
 */
import { fileURLToPath } from 'node:url';
import { markdownTable, numberFlag, progress, replaceDocsSection, wantsJson } from '../report.js';
import { startBenchEmulator } from '../peers/driver.js';
import { rotatingRounds } from '../peers/rounds.js';
import { summarizeRuns } from '../peers/measurement.js';
import { runEngine, type RunSpec } from '../engine/runs.js';
import { A_PER_SECOND, B_PER_SECOND, BURST_SECONDS, dwellRun, HANDLER_MS, HANDLERS, percentile, type DwellSpec } from './scenario.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 7);
/** The engine alone varies by ±10% from one process to the next: many short paired runs resolve a few percent. */
const happyRounds = numberFlag(argv, '--happy-rounds', 15);
const DWELL_RUNS: Array<DwellSpec & { label: string }> = [
  { label: 'B alone, tenants off', withA: false },
  { label: 'B alone, tenants on', withA: false, tenants: {} },
  { label: 'B with A, tenants off', withA: true },
  { label: 'B with A, tenants on (turns, read-ahead 300)', withA: true, tenants: {} },
  { label: 'B with A, tenants on, cap 90%, read-ahead 1,000', withA: true, tenants: { maxInFlight: '90%', prefetch: 1_000 } },
];
const HAPPY_MESSAGES = 50_000;
const happySpec = (tenants: boolean): RunSpec => ({
  tracing: 'off',
  tracedIn: false,
  messages: HAPPY_MESSAGES,
  latencyMs: 0,
  handlerMs: 0,
  maxInFlight: 50,
  tenants,
});

const emulator = await startBenchEmulator();
const dwell = await rotatingRounds(DWELL_RUNS.length, rounds, async (i, round) => {
  if (i === round % DWELL_RUNS.length) progress(`dwell: round ${round + 1} of ${rounds}`);
  return (await dwellRun(emulator, DWELL_RUNS[i]!)).bDwellMs;
});
await emulator.stop();
const happy = await rotatingRounds(2, happyRounds, async (i, round) => {
  if (i === round % 2) progress(`one tenant, engine alone: round ${round + 1} of ${happyRounds}`);
  return runEngine(happySpec(i === 1));
});

const rows = DWELL_RUNS.map((run, i) => {
  const perRound = dwell[i]!.map((samples) => percentile(samples, 95));
  return { ...run, pooled: percentile(dwell[i]!.flat(), 95), perRound: summarizeRuns(perRound), samples: dwell[i]!.flat().length };
});
const baseline = rows[0]!.pooled;
const [off, on] = happy.map((runs) => ({
  rate: summarizeRuns(runs.map((r) => r.messagesPerSecond)),
  cpu: summarizeRuns(runs.map((r) => r.cpuMicrosPerMessage)),
}));
const happyRatio = summarizeRuns(happy[1]!.map((r, round) => r.messagesPerSecond / happy[0]![round]!.messagesPerSecond)).median;

const table = [
  markdownTable(rows, [
    { header: 'run', value: (r) => r.label },
    { header: "B's p95 dwell, ms (all rounds' messages)", value: (r) => r.pooled.toFixed(0) },
    { header: 'per round: median (range)', value: (r) => `${r.perRound.median.toFixed(0)} (${r.perRound.min.toFixed(0)}-${r.perRound.max.toFixed(0)})` },
    { header: 'against B alone, tenants off', value: (r) => `${(r.pooled / baseline).toFixed(2)}×` },
  ]),
  '',
  `One tenant, engine alone (${HAPPY_MESSAGES.toLocaleString('en-US')} messages, 50 no-op handlers, in-memory queue): ${off!.rate.median.toFixed(0)} messages/s tenants off (${off!.cpu.median.toFixed(1)} µs CPU a message), ${on!.rate.median.toFixed(0)} tenants on (${on!.cpu.median.toFixed(1)} µs): **${happyRatio.toFixed(3)}×** (median of ${happyRounds} rounds' ratios).`,
].join('\n');

const doc = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));
const method = `Measured with \`npm run bench:tenants${argv.length ? ` -- ${argv.join(' ')}` : ''}\` (${rounds} rounds): ${HANDLERS} handlers of ${HANDLER_MS} ms, tenants read from \`body.tenant\`; B publishes ${B_PER_SECOND}/s for ${BURST_SECONDS} s, A ${A_PER_SECOND}/s over the same seconds.`;
replaceDocsSection(doc, 'tenants', `${method}\n\n${table}`);
process.stdout.write(wantsJson(argv) ? `${JSON.stringify({ dwell: rows, happy: { off, on, ratio: happyRatio } }, null, 2)}\n` : `${table}\n`);
