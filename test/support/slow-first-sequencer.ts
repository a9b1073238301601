import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files, longest first (from a full run's JSON report). A fresh clone
 * has no vitest results cache, so vitest would order by file size, and a short file that
 * runs a 100-second scenario would start last and set the suite's time alone. Started
 * first, they overlap the many short files instead.
 */
const LONGEST = [
  'test/faults/restarts.test.ts',
  'test/integration/dlq-triage.test.ts',
  'test/integration/worker-process.test.ts',
  'test/integration/dlq-redrive.test.ts',
  'test/integration/dlq-cli.test.ts',
  'test/integration/demo.test.ts',
  'test/integration/fifo.test.ts',
  'test/faults/outage.test.ts',
  'test/integration/engine.test.ts',
  'test/faults/interruptions.test.ts',
  'test/integration/hostile-rate-limit.test.ts',
  'test/browser/dashboard.test.ts',
];

function rank(spec: TestSpecification): number {
  const index = LONGEST.findIndex((path) => spec.moduleId.endsWith(path));
  return index === -1 ? LONGEST.length : index;
}

/** Vitest's own order (its results cache, else file size), with the known longest files first. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
