/**
 * `npm run bench:tenants`: one tenant's burst against another's steady trickle, on the
 * emulator (its own process), the worker in this one. Tenant B publishes 5 messages a
 * second for 4 s; in the runs with A, tenant A publishes 100 times that rate over the same
 * 4 s: 2,000 messages at what 10 handlers of 20 ms finish at best. Figures: B's dwell
 * (publish to handler start) with and without A, tenants off and on; and what tenants on
 * costs one tenant's backlog through no-op handlers. Runs rotate within each round, so each
 * ratio pairs runs made seconds apart. The table goes to docs/benchmarks.md.
 */
import { fileURLToPath } from 'node:url';
import { markdownTable, numberFlag, progress, replaceDocsSection, wantsJson } from '../report.js';
import { startBenchEmulator } from '../peers/driver.js';
import { rotatingRounds } from '../peers/rounds.js';
import { summarizeRuns } from '../peers/measurement.js';
import { A_PER_SECOND, B_PER_SECOND, BURST_SECONDS, dwellRun, HANDLER_MS, HANDLERS, HAPPY_BACKLOG, happyRun, percentile } from './scenario.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 7);
const DWELL_RUNS = [
  { label: 'B alone, tenants off', withA: false, tenants: false },
  { label: 'B alone, tenants on', withA: false, tenants: true },
  { label: 'B with A, tenants off', withA: true, tenants: false },
  { label: 'B with A, tenants on', withA: true, tenants: true },
] as const;
const HAPPY_RUNS = [false, true] as const;

const emulator = await startBenchEmulator();
// The first run of a process is slow while V8 compiles the worker: one, not counted.
await happyRun(emulator, false);
const runs = DWELL_RUNS.length + HAPPY_RUNS.length;
const results = await rotatingRounds(runs, rounds, async (i, round) => {
  if (i === round % runs) progress(`round ${round + 1} of ${rounds}`);
  return i < DWELL_RUNS.length ? percentile((await dwellRun(emulator, DWELL_RUNS[i]!)).bDwellMs, 95) : happyRun(emulator, HAPPY_RUNS[i - DWELL_RUNS.length]!);
});
await emulator.stop();

const p95 = DWELL_RUNS.map((run, i) => ({ ...run, p95: summarizeRuns(results[i]!), perRound: results[i]! }));
const baseline = p95[0]!;
const ratioTo = (perRound: number[]) => summarizeRuns(perRound.map((value, round) => value / baseline.perRound[round]!)).median;
const happy = HAPPY_RUNS.map((tenants, k) => ({ tenants, rate: results[DWELL_RUNS.length + k]! }));
const happyRatio = summarizeRuns(happy[1]!.rate.map((rate, round) => rate / happy[0]!.rate[round]!)).median;

const table = [
  markdownTable(p95, [
    { header: 'run', value: (r) => r.label },
    { header: "B's p95 dwell, ms (median of rounds, range)", value: (r) => `${r.p95.median.toFixed(0)} (${r.p95.min.toFixed(0)}-${r.p95.max.toFixed(0)})` },
    { header: 'against B alone, tenants off (paired)', value: (r) => (r === baseline ? '1×' : `${ratioTo(r.perRound).toFixed(2)}×`) },
  ]),
  '',
  `One tenant's backlog of ${HAPPY_BACKLOG.toLocaleString('en-US')} through ${HANDLERS} no-op handlers: ${summarizeRuns(happy[0]!.rate).median.toFixed(0)} messages/s tenants off, ${summarizeRuns(happy[1]!.rate).median.toFixed(0)} tenants on: **${happyRatio.toFixed(3)}×** (paired by round).`,
].join('\n');

const doc = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));
const method = `Measured with \`npm run bench:tenants${argv.length ? ` -- ${argv.join(' ')}` : ''}\` (${rounds} rounds): ${HANDLERS} handlers of ${HANDLER_MS} ms, tenants read from \`body.tenant\` at their defaults; B publishes ${B_PER_SECOND}/s for ${BURST_SECONDS} s, A ${A_PER_SECOND}/s over the same seconds.`;
replaceDocsSection(doc, 'tenants', `${method}\n\n${table}`);
process.stdout.write(wantsJson(argv) ? `${JSON.stringify({ dwell: p95, happy }, null, 2)}\n` : `${table}\n`);
