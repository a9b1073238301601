// Writes test/support/file-durations.json from vitest's results cache of the last full
// `npm test`: each test file's wall time in seconds. The suite's sequencer starts the longest
// files first from this table, so a fresh clone (no results cache) runs in the same order
// as a working tree. Run it after a full `npm test` when files are added or change much.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = join('node_modules', '.vite', 'vitest');
const caches = readdirSync(cacheDir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
if (caches.length === 0) {
  process.stderr.write(`no vitest results cache under ${cacheDir}: run npm test first\n`);
  process.exit(1);
}
const results = JSON.parse(readFileSync(join(cacheDir, caches[0].name, 'results.json'), 'utf8'));
const files = Object.values(results.projects).flatMap((project) => Object.entries(project.files));
const durations = Object.fromEntries(
  files
    .filter(([path]) => !path.startsWith('test/image/') && !path.startsWith('test/newcomer/'))
    .map(([path, { duration }]) => [path, Math.round(duration / 100) / 10])
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b)),
);
writeFileSync(join('test', 'support', 'file-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
process.stderr.write(`${Object.keys(durations).length} files' durations written to test/support/file-durations.json\n`);
