/**
 * `npm run bench -- --flame`: where the engine's CPU goes, as flame graphs. The engine
 * alone (`run.ts`: the public `SqsWorker`, no HTTP, an in-memory queue, V8 sized as
 * deployed) drains 100,000 messages on the happy path and 50,000 on the retry path (each
 * fails once, its copy sent at once), profiled over the timed window only; each profile
 * is drawn beside the benchmarks doc and summarised on stdout. The sampling profiler
 * slows the run, so the CPU figures come from the runs without it (`npm run bench:engine-cpu`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { progress } from '../report.js';
import { flameSvg, frameTree, summary, type CpuProfile } from './flame-graph.js';
import { runEngine, type RunSpec } from './runs.js';

const DOCS = (name: string) => fileURLToPath(new URL(`../../../docs/${name}`, import.meta.url));

const PATHS = [
  { name: 'happy', file: 'flame-engine-happy.svg', spec: { messages: 100_000 }, title: 'engine alone, happy path (100,000 no-op handlers @50)' },
  {
    name: 'retry',
    file: 'flame-engine-retry.svg',
    spec: { messages: 50_000, failOnce: true },
    title: 'engine alone, retry path (50,000 messages, each failing once @50)',
  },
] as const;

export async function flameGraphs(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'requeue-flame-'));
  const summaries: Record<string, ReturnType<typeof summary>> = {};
  for (const path of PATHS) {
    progress(`profiling the ${path.name} path: ${path.title}`);
    const profilePath = join(folder, `${path.name}.cpuprofile`);
    const spec: RunSpec = { tracing: 'no-sdk', tracedIn: false, latencyMs: 0, handlerMs: 0, maxInFlight: 50, profilePath, ...path.spec };
    await runEngine(spec);
    const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
    writeFileSync(DOCS(path.file), flameSvg(frameTree(profile), path.title));
    summaries[path.name] = summary(profile);
    progress(`  docs/${path.file}`);
  }
  process.stdout.write(`${JSON.stringify(summaries, null, 2)}\n`);
}
