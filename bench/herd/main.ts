import { createRetryPolicy, type JitterInput } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { markdownTable, numberFlag, progress, replaceDocsSection, wantsJson } from '../report.js';
import { DEFAULT_SCENARIO, requeuePolicy, seedReferencePolicy, simulateHerd, type HerdResult, type SimulatedPolicy } from './model.js';

/**
 * `npm run bench:herd [-- --json] [--seeds N] [--update-docs]`
 * 10,000 messages fail at t=0 against a downstream that is down for 60 s and then admits
 * 200 calls/s (429 beyond). Every requeue row runs the real decide().
 */
const argv = process.argv.slice(2);
const seeds = numberFlag(argv, '--seeds', 10);
const scenario = DEFAULT_SCENARIO;

// Every row but the reference uses the shipped preset's types and numbers; only the jitter varies.
const withJitter = (jitter: JitterInput) => createRetryPolicy({ jitter });
const policies: Array<{ label: string; policy: SimulatedPolicy }> = [
  { label: 'requeue default (shipped)', policy: requeuePolicy('default', createRetryPolicy()) },
  { label: 'seed reference (as written)', policy: seedReferencePolicy() },
  { label: 'requeue preset, no jitter', policy: requeuePolicy('none', withJitter('none')) },
  { label: 'requeue preset, full jitter', policy: requeuePolicy('full', withJitter('full')) },
  { label: 'requeue preset, equal jitter', policy: requeuePolicy('equal', withJitter('equal')) },
  { label: 'requeue preset, decorrelated jitter', policy: requeuePolicy('decorrelated', withJitter('decorrelated')) },
  { label: 'requeue preset, proportional 0.3', policy: requeuePolicy('proportional-0.3', withJitter({ type: 'proportional', fraction: 0.3 })) },
];

interface Row {
  policy: string;
  downstreamCalls: number;
  successes: number;
  deadLettered: number;
  drainSeconds: number;
  peakCallsPerSecondAfterRecovery: number;
  peakOverCapacity: number;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const round1 = (value: number) => Math.round(value * 10) / 10;

const rows: Row[] = policies.map(({ label, policy }) => {
  const runs: HerdResult[] = [];
  for (let seed = 1; seed <= seeds; seed++) runs.push(simulateHerd(policy, scenario, seededRandom(seed)));
  const peak = mean(runs.map((r) => r.peakCallsPerSecondAfterRecovery));
  const row = {
    policy: label,
    downstreamCalls: round1(mean(runs.map((r) => r.downstreamCalls))),
    successes: round1(mean(runs.map((r) => r.successes))),
    deadLettered: round1(mean(runs.map((r) => r.deadLettered))),
    drainSeconds: round1(mean(runs.map((r) => r.drainSeconds))),
    peakCallsPerSecondAfterRecovery: round1(peak),
    peakOverCapacity: round1(peak / scenario.capacityPerSecond),
  };
  progress(
    `${label}: ${row.downstreamCalls} calls, ${row.deadLettered} dead-lettered, drained in ${row.drainSeconds} s, peak ${row.peakCallsPerSecondAfterRecovery}/s`,
  );
  return row;
});

const ours = rows[0]!;
const reference = rows[1]!;
const targets = {
  zeroDeadLettered: { target: '0', measured: ours.deadLettered, met: ours.deadLettered === 0 },
  callsVersusReference: {
    target: '<= 0.85',
    measured: round2(ours.downstreamCalls / reference.downstreamCalls),
    met: ours.downstreamCalls <= 0.85 * reference.downstreamCalls,
  },
  peakOverCapacity: { target: '<= 2', measured: ours.peakOverCapacity, met: ours.peakOverCapacity <= 2 },
  drainVersusReference: { target: '<= 1', measured: round2(ours.drainSeconds / reference.drainSeconds), met: ours.drainSeconds <= reference.drainSeconds },
};

function round2(value: number) {
  return Math.round(value * 100) / 100;
}

const table = markdownTable(rows, [
  { header: 'policy', value: (r) => r.policy },
  { header: 'downstream calls', value: (r) => r.downstreamCalls },
  { header: 'successes', value: (r) => r.successes },
  { header: 'dead-lettered', value: (r) => r.deadLettered },
  { header: 'drain time (s)', value: (r) => r.drainSeconds },
  { header: 'peak calls/s after recovery', value: (r) => `${r.peakCallsPerSecondAfterRecovery} (${r.peakOverCapacity}x)` },
]);

const document = { scenario, seeds, rows, targets };
if (wantsJson(argv)) {
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
} else {
  progress('');
  progress(table);
  progress('');
  for (const [name, t] of Object.entries(targets)) progress(`${t.met ? 'met   ' : 'MISSED'} ${name}: ${t.measured} (target ${t.target})`);
}

if (argv.includes('--update-docs')) {
  replaceDocsSection(
    'docs/benchmarks.md',
    'herd',
    [
      '## Thundering herd model (`libs/retry` policies)',
      '',
      `${scenario.messages.toLocaleString('en-US')} messages fail at t=0. The downstream is down for ${scenario.outageSeconds} s, then admits ${scenario.capacityPerSecond} calls/s and answers 429 beyond that. One-second resolution; every message visible in a second is called in that second. Each figure is the mean over ${seeds} seeds. The requeue rows run the real \`decide()\`; the seed reference re-implements the seed article's arithmetic as written.`,
      '',
      table,
      '',
      'Targets for the shipped default: ' +
        Object.entries(targets)
          .map(([name, t]) => `${name} ${t.measured} (target ${t.target}, ${t.met ? 'met' : 'missed'})`)
          .join('; ') +
        '.',
      '',
      'Reproduce: `npm run bench:herd` (table on stderr), `npm run -s bench:herd -- --json` (one JSON document on stdout), `npm run bench:herd -- --update-docs` (rewrites this section).',
    ].join('\n'),
  );
  progress('docs/benchmarks.md updated');
}
