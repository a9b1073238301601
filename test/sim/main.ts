/**
 * `npm run sim`: the real engine in virtual time against a simulated SQS with seeded
 * faults, each seed a scenario (standard or FIFO, a mix of handler outcomes, fault rates),
 * every run checked against the invariants. `--seeds N` (default 1000) from `--from S`
 * (default 1); `--seed S` reruns one seed and prints its scenario; `--json` prints one
 * JSON document `{ seeds, violations, ... }`; `--stop-at-first` ends at the first seed that
 * breaks an invariant; `--without-faults` runs the same scenarios with every SQS fault off,
 * and no worker crash (with faults, the process is killed mid-step in 30% of them).
 * A broken seed is shrunk (`shrink.ts`; the first five seeds that broke): the smallest
 * scenario found that still breaks the invariant, printed as `--scenario '<JSON>'`, which
 * runs exactly that scenario. Exits 1 when an invariant broke.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { violationsOf } from './invariants.js';
import { runScenario } from './run-scenario.js';
import { scenarioOf, type Scenario } from './scenario.js';
import { runSeeds, type SeedViolation } from './seeds.js';
import { shrinkScenario } from './shrink.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1000' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string' },
    scenario: { type: 'string' },
    json: { type: 'boolean', default: false },
    'stop-at-first': { type: 'boolean', default: false },
    'without-faults': { type: 'boolean', default: false },
  },
});

function wholeNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${flag} must be a whole number, got ${JSON.stringify(text)}`);
  return value;
}

const seedOptions = () => ({ withFaults: !values['without-faults'] });

/** `--scenario`: JSON, or the path of a JSON file, as a shrink prints it. */
function givenScenario(text: string): Scenario {
  return JSON.parse(text.trimStart().startsWith('{') ? text : readFileSync(text, 'utf8')) as Scenario;
}

async function one(scenario: Scenario): Promise<number> {
  const record = await runScenario(scenario);
  const violations = violationsOf(record);
  const summary = {
    seed: scenario.seed,
    scenario: record.scenario,
    settled: record.settled,
    virtualMinutes: Math.round(record.virtualMs / 60_000),
    handlerRuns: record.runs.length,
    deadLetters: record.deadLetters,
    redriven: record.redriven,
    faults: record.faults,
    sqsCalls: record.sqsCalls,
    violations,
  };
  process.stdout.write(`${JSON.stringify(summary, null, values.json ? undefined : 2)}\n`);
  return violations.length === 0 ? 0 : 1;
}

async function many(from: number, count: number): Promise<number> {
  const started = performance.now();
  const report = await runSeeds(from, count, {
    onSeed: (seed) => {
      if (!values.json && (seed - from + 1) % 100 === 0) process.stderr.write(`${seed - from + 1} seeds\n`);
    },
    stopAtFirstViolation: values['stop-at-first'],
    ...seedOptions(),
  });
  const seconds = (performance.now() - started) / 1000;
  const shrunk = await shrinkFirst(report.violations);
  const document = { ...report, shrunk, seconds: Number(seconds.toFixed(1)), seedsPerMinute: Math.round((report.seeds / seconds) * 60) };
  if (values.json) process.stdout.write(`${JSON.stringify(document)}\n`);
  else {
    process.stdout.write(
      `${report.seeds} seeds in ${document.seconds} s (${document.seedsPerMinute}/min), ${report.virtualHours.toFixed(1)} virtual hours, ` +
        `${report.handlerRuns} handler runs; faults: ${report.faults.refused} refused, ${report.faults.answerLost} answers lost, ` +
        `${report.faults.duplicate} duplicates, ${report.faults.partial} batch entries failed; ${report.violations.length} violation(s)\n`,
    );
    for (const v of report.violations) process.stdout.write(`seed ${v.seed}: ${v.invariant}: ${v.detail} (rerun: ${v.reproduce})\n`);
    for (const s of shrunk) process.stdout.write(`seed ${s.seed} shrunk to ${s.messages} message(s), still ${s.invariant}: ${s.reproduce}\n`);
  }
  return report.violations.length === 0 ? 0 : 1;
}

/** Shrinks the first violation of each of the first five seeds that broke. */
async function shrinkFirst(violations: readonly SeedViolation[]) {
  const firsts = [...new Map(violations.map((v) => [v.seed, v] as const)).values()].slice(0, 5);
  const shrunk = [];
  for (const { seed, invariant } of firsts) {
    const { scenario } = await shrinkScenario(scenarioOf(seed, seedOptions()), invariant);
    shrunk.push({ seed, invariant, messages: scenario.messages.length, reproduce: `npm run sim -- --scenario '${JSON.stringify(scenario)}'` });
  }
  return shrunk;
}

async function chosen(): Promise<number> {
  if (values.scenario !== undefined) return one(givenScenario(values.scenario));
  if (values.seed !== undefined) return one(scenarioOf(wholeNumber('seed', values.seed), seedOptions()));
  return many(wholeNumber('from', values.from), wholeNumber('seeds', values.seeds));
}

try {
  process.exitCode = await chosen();
} catch (error) {
  process.stderr.write(`sim: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
