import { violationsOf, type Violation } from './invariants.js';
import { runScenario } from './run-scenario.js';
import { scenarioOf } from './scenario.js';

/** A broken invariant in one seed's run, with the command that reruns exactly that run. */
export interface SeedViolation extends Violation {
  seed: number;
  reproduce: string;
}

export interface SeedsReport {
  seeds: number;
  violations: SeedViolation[];
  /** Virtual hours the runs covered, together. */
  virtualHours: number;
  handlerRuns: number;
  faults: { refused: number; answerLost: number; duplicate: number; partial: number };
}

/** Runs seeds `from` to `from + count - 1`, one after the other (or up to the first that breaks an invariant), and gathers what broke. */
export async function runSeeds(
  from: number,
  count: number,
  options: { onSeed?: (seed: number) => void; stopAtFirstViolation?: boolean; withFaults?: boolean } = {},
): Promise<SeedsReport> {
  const report: SeedsReport = { seeds: 0, violations: [], virtualHours: 0, handlerRuns: 0, faults: { refused: 0, answerLost: 0, duplicate: 0, partial: 0 } };
  for (let seed = from; seed < from + count; seed++) {
    const withFaults = options.withFaults ?? true;
    const record = await runScenario(scenarioOf(seed, { withFaults }));
    report.seeds++;
    report.virtualHours += record.virtualMs / 3_600_000;
    report.handlerRuns += record.runs.length;
    for (const kind of ['refused', 'answerLost', 'duplicate', 'partial'] as const) report.faults[kind] += record.faults[kind];
    const reproduce = `npm run sim -- --seed ${seed}${withFaults ? '' : ' --without-faults'}`;
    for (const violation of violationsOf(record)) report.violations.push({ seed, ...violation, reproduce });
    options.onSeed?.(seed);
    if (options.stopAtFirstViolation && report.violations.length > 0) break;
  }
  return report;
}
