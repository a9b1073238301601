/**
 * `npm run sim:mutants`: plants each known defect (`mutants.ts`) in the engine as it loads
 * and runs the seeds until one breaks an invariant, up to `--seeds N` (default 1000).
 * Prints, per mutant, the seeds it took to catch it and the invariant that caught it, or
 * that it was missed; `--json` prints one JSON document. SQS faults are off unless
 * `--with-faults`: the check needs seeds that pass unmutated. Exits 1 when a mutant is missed.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { MUTANTS } from './mutants.js';
import type { SeedsReport } from './seeds.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
const PLANT = fileURLToPath(new URL('./plant-mutant.js', import.meta.url));
const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '1000' }, json: { type: 'boolean', default: false }, 'with-faults': { type: 'boolean', default: false } },
});

interface Caught {
  mutant: string;
  defect: string;
  caughtAtSeed: number | undefined;
  invariant: string | undefined;
  detail: string | undefined;
  /** Messages in the smallest scenario found that still catches it. */
  shrunkTo: number | undefined;
}

async function check(name: string, defect: string): Promise<Caught> {
  const args = ['--import', PLANT, MAIN, '--seeds', values.seeds, '--json', '--stop-at-first', ...(values['with-faults'] ? [] : ['--without-faults'])];
  // The simulation exits 1 when an invariant broke: here that is the expected answer.
  const { stdout } = await run(process.execPath, args, { env: { ...process.env, SIM_MUTANT: name }, maxBuffer: 64 << 20 }).catch(
    (error: { stdout?: string; code?: number; stderr?: string }) => {
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw new Error(`mutant ${name}: the simulation failed: ${error.stderr ?? String(error)}`);
    },
  );
  const report = JSON.parse(stdout) as SeedsReport & { shrunk: Array<{ messages: number }> };
  const first = report.violations[0];
  return { mutant: name, defect, caughtAtSeed: first?.seed, invariant: first?.invariant, detail: first?.detail, shrunkTo: report.shrunk[0]?.messages };
}

const results: Caught[] = [];
for (const mutant of MUTANTS) results.push(await check(mutant.name, mutant.defect));
if (values.json) process.stdout.write(`${JSON.stringify({ seeds: Number(values.seeds), mutants: results })}\n`);
else {
  process.stdout.write('| planted defect | caught at seed | by | shrunk to |\n|---|---|---|---|\n');
  for (const r of results) {
    const shrunk = r.shrunkTo === undefined ? '-' : `${r.shrunkTo} message(s)`;
    process.stdout.write(`| ${r.defect} (\`${r.mutant}\`) | ${r.caughtAtSeed ?? `missed in ${values.seeds}`} | ${r.invariant ?? '-'} | ${shrunk} |\n`);
  }
}
process.exitCode = results.every((r) => r.caughtAtSeed !== undefined) ? 0 : 1;
