import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { progress, replaceDocsSection, wantsJson } from '../report.js';
import type { Document } from './document.js';
import { HERD_POLICIES, type Config } from './rows.js';
import { startBenchEmulator, type BenchEmulator, type SystemName, type SystemUnderTest } from './driver.js';
import { writeHerdChart } from './herd-chart.js';
import { HERD, runHerd, summarizeHerd, type HerdSummary } from './herd.js';
import { measureIdle } from './idle.js';
import { runMemory } from './memory.js';
import { renderDocs } from './render-docs.js';
import { cpuLayout } from './cpu-layout.js';
import { latencyRows } from './latency-rows.js';
import { targets } from './targets.js';
import { featureCostRows, idempotencyRun, tracingRows } from './feature-rows.js';
import { fleetSizes, fleetTable, runFleet, type FleetRun } from './fleet.js';
import { batchRows } from './batch-rows.js';
import { batchOnly, featuresOnly, happyOnly, latencyOnly, retryOnly } from './partial-runs.js';
import { happyRows, retryRows } from './scenarios.js';
import { flameGraphs } from '../engine/flame.js';

const DOCS = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));
const CHART = fileURLToPath(new URL('../../../docs/herd-e2e.svg', import.meta.url));
const FLEET_CHART = fileURLToPath(new URL('../../../docs/herd-fleet.svg', import.meta.url));
const DETAIL_DOCS = fileURLToPath(new URL('../../../docs/benchmarks-detail.md', import.meta.url));

/** The run's sections of docs/benchmarks.md and docs/benchmarks-detail.md. */
function writeDocs(document: Document): void {
  const { summary, detail } = renderDocs(document);
  replaceDocsSection(DOCS, 'peers', summary);
  replaceDocsSection(DETAIL_DOCS, 'peers-detail', detail);
}

function configFrom(argv: string[]): Config {
  const quick = argv.includes('--quick');
  const { description: cpuLayoutDescription } = cpuLayout();
  const config: Config = quick
    ? {
        quick,
        runs: 1,
        backlog: 1000,
        warmupSeconds: 0,
        capSeconds: 1,
        retryBacklog: 500,
        retryWarmupCount: 50,
        retrySeedBacklog: 100,
        retryCapSeconds: 20,
        memoryBacklog: 5000,
        memoryPasses: 2,
        idleSeconds: 5,
        herdMessages: 50,
        herdCapSeconds: 30,
      }
    : {
        quick,
        runs: 3,
        backlog: 20_000,
        warmupSeconds: 0.5,
        capSeconds: 1.4,
        retryBacklog: 10_000,
        retryWarmupCount: 1000,
        retrySeedBacklog: 1000,
        retryCapSeconds: 30,
        memoryBacklog: 100_000,
        memoryPasses: 3,
        idleSeconds: 60,
        herdMessages: HERD.messages,
        herdCapSeconds: 72,
      };
  return { ...config, cpuLayout: cpuLayoutDescription };
}

/** Rewrites the docs section (and the herd chart, when the document has its timelines) from a saved `--json` document. */
async function renderSaved(path: string): Promise<void> {
  const saved = JSON.parse(readFileSync(path, 'utf8')) as Document;
  const document = { ...saved, latency: saved.latency ?? [], targets: targets({ ...saved, latency: saved.latency ?? [] }, saved.config.herdMessages) };
  if (saved.herd.every((run) => Array.isArray(run.timeline))) await writeHerdChart(saved.herd, CHART);
  writeDocs(document);
  if (saved.fleet) await documentFleet(saved.fleet, saved.config, `npm run bench${saved.config.quick ? ' -- --quick' : ''}`);
}

/**
 * Our defaults `runs` times and one run of each baseline, all at once: each run has its own
 * queue and its own downstream, so they meet only in CPU, and the herd is light on it (a
 * few hundred calls a second). The baselines take minutes to drain, so they are capped;
 * they run on after our defaults have drained, so the two groups resolve apart.
 */
function startHerdComparison(emulator: BenchEmulator, config: Config): { defaults: Promise<HerdSummary>; baselines: Promise<HerdSummary[]> } {
  progress(
    `herd, end to end: ${config.herdMessages} webhooks, dependency down ${HERD.outageMs / 1000} s ` +
      `then ${HERD.capacityPerSecond}/s; baselines capped at ${config.herdCapSeconds} s`,
  );
  const webhook =
    (system: SystemName) =>
    (url: string): SystemUnderTest => ({ system, concurrency: 50, env: { WORKER_HANDLER: 'webhook', WEBHOOK_URL: url, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  const herdRun = (policy: string, sut: (url: string) => SystemUnderTest) => runHerd(emulator, policy, sut, config.herdCapSeconds, config.herdMessages);
  const defaults = Promise.all(Array.from({ length: config.runs }, () => herdRun(HERD_POLICIES.backpressure, webhook('requeue')))).then(summarizeHerd);
  const baselines = Promise.all([
    herdRun(HERD_POLICIES.plain, webhook('requeue-no-backpressure')),
    herdRun(HERD_POLICIES.seed, (url) => ({ system: 'seed-reference', concurrency: 1, env: { BENCH_WEBHOOK_URL: url } })),
  ]).then((runs) => runs.map((run) => summarizeHerd([run])));
  // Awaited later, after the memory run: a failure meanwhile must not go unhandled.
  baselines.catch(() => undefined);
  return { defaults, baselines };
}

/** Rewrites the fleet section of docs/benchmarks.md and its chart from one fleet run. */
async function documentFleet(fleet: readonly FleetRun[], config: Config, command: string): Promise<void> {
  await writeHerdChart(
    fleet.map((run) => run.summary),
    FLEET_CHART,
  );
  const intro = [
    `Measured with \`${command}\`: the end-to-end herd (${config.herdMessages.toLocaleString('en-US')} webhooks, the dependency down`,
    `${HERD.outageMs / 1000} s, then ${HERD.capacityPerSecond} requests/s with 429 + Retry-After: 1 beyond) drained by each fleet in turn,`,
    'every worker its own process at concurrency 10,',
    'the backlog loaded once every worker is ready: each size first with the defaults (backpressure on, each worker on its own),',
    "then with `WORKER_FLEET_STATE` on a real redis-server (the workers share backpressure; Redis's own command count per message).",
    'The last row is the single worker of the end-to-end herd above (concurrency 50), run again beside the fleets.',
  ].join(' ');
  replaceDocsSection(
    DOCS,
    'fleet',
    `${intro}\n\n${fleetTable(fleet, config.herdMessages)}\n\n![Downstream requests per second, one line per fleet size](herd-fleet.svg)`,
  );
}

/** `npm run bench -- --fleet`: only the fleet runs; with --update-docs, their section and chart. */
async function fleetOnly(config: Config, argv: string[]): Promise<void> {
  const emulator = await startBenchEmulator();
  try {
    progress(`fleet: the herd drained by ${fleetSizes(config.quick).join(', ')} worker processes, one size after the other`);
    const fleet = await runFleet(emulator, config);
    if (argv.includes('--update-docs')) await documentFleet(fleet, config, `npm run bench -- --fleet${config.quick ? ' --quick' : ''}`);
    const runs = fleet.map((run) => ({
      workers: run.workers,
      concurrency: run.concurrency,
      store: run.store,
      storeCallsPerMessage: run.storeCallsPerMessage,
      ...run.summary,
      timeline: run.summary.timeline.map((s) => `${s.second}:${s.accepted}/${s.rejected}`).join(' '),
    }));
    const measured = targets({ happy: [], latency: [], retry: [], memory: undefined, herd: [], fleet }, config.herdMessages);
    process.stdout.write(`${JSON.stringify({ fleet: runs, targets: measured }, null, 2)}\n`);
  } finally {
    await emulator.stop();
  }
}

async function main(argv: string[]): Promise<void> {
  const savedIndex = argv.indexOf('--render-docs');
  if (savedIndex !== -1) return renderSaved(argv[savedIndex + 1] ?? '');
  if (argv.includes('--latency')) return latencyOnly(configFrom(argv));
  if (argv.includes('--happy')) return happyOnly(configFrom(argv));
  if (argv.includes('--features')) return featuresOnly(configFrom(argv));
  if (argv.includes('--retry')) return retryOnly(configFrom(argv));
  if (argv.includes('--fleet')) return fleetOnly(configFrom(argv), argv);
  if (argv.includes('--batch')) return batchOnly(configFrom(argv));
  if (argv.includes('--flame')) return flameGraphs();
  const config = configFrom(argv);
  const started = Date.now();
  const emulator = await startBenchEmulator();
  try {
    const happy = await happyRows(emulator, config);
    const batch = await batchRows(emulator, config);

    const featureCost = await featureCostRows(emulator, config);
    const tracing = await tracingRows(emulator, config);
    const idempotency = await idempotencyRun(emulator, config);

    const latency = await latencyRows(emulator, config);

    const retry = await retryRows(emulator, config);

    const herdRuns = startHerdComparison(emulator, config);
    const defaults = await herdRuns.defaults;
    // The baselines run on to their cap, light on CPU (a sequential loop and delayed
    // retries), so memory runs beside them rather than after: it reads RSS, which CPU does
    // not move, and the baselines' requests can only be slowed, never added to.
    progress(
      `memory: requeue @50, ${config.memoryBacklog.toLocaleString('en-US')} messages at 1 ms, ${config.memoryPasses} passes, beside the herd's baselines`,
    );
    const [memory, idle] = await Promise.all([runMemory(emulator, config.memoryBacklog, config.memoryPasses), measureIdle(emulator, config.idleSeconds)]);
    const herd = [defaults, ...(await herdRuns.baselines)];
    for (const run of herd)
      progress(
        `  ${run.policy}: ${run.downstreamRequests.median} requests, ${run.drained ? 'drained' : 'stopped'} ` +
          `at ${run.drainSeconds.median.toFixed(0)} s, peak ${run.peakAfterRecovery.median}/s, ${run.deadLettered} dead-lettered`,
      );

    progress(`  idle: ${idle.callsPerMinute.toFixed(1)} SQS calls a minute`);
    progress(`fleet: the herd drained by ${fleetSizes(config.quick).join(', ')} worker processes, one size after the other`);
    const fleet = await runFleet(emulator, config);
    const document = {
      config,
      happy,
      batch,
      featureCost,
      tracing,
      idempotency,
      latency,
      idle,
      retry,
      memory,
      herd,
      fleet,
      targets: targets({ happy, batch, featureCost, tracing, idempotency, latency, retry, memory, herd, fleet }, config.herdMessages),
      durationSeconds: (Date.now() - started) / 1000,
    };
    if (argv.includes('--update-docs')) {
      await writeHerdChart(herd, CHART);
      writeDocs(document);
      await documentFleet(fleet, config, `npm run bench${config.quick ? ' -- --quick' : ''}`);
    }
    if (wantsJson(argv)) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    else process.stdout.write(`${Object.values(renderDocs(document)).join('\n\n')}\n`);
  } finally {
    await emulator.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  progress(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
