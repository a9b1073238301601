import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Each test file's wall time in seconds from a full `npm test` (written by
 * `node scripts/record-test-durations.mjs`). A fresh clone has no vitest results cache, so
 * vitest would order files by size, and a short file that runs a 100-second scenario would
 * start last and set the suite's time alone. Started longest first, from the same table in
 * every checkout, the long files overlap the many short ones.
 */
const DURATIONS = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

function recorded(spec: TestSpecification): number | undefined {
  const path = spec.moduleId.slice(spec.project.config.root.length + 1);
  return DURATIONS[path];
}

/**
 * The recorded durations, longest first; a file the table does not know yet (new since it
 * was written) goes first, as vitest runs unknown files first, in vitest's own order.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, position) => ({ spec, position, seconds: recorded(spec) ?? Infinity }))
      .sort((a, b) => b.seconds - a.seconds || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
