import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { markdownTable, progress, replaceDocsSection, wantsJson } from '../report.js';
import { callsPerMessageByAction, measure, startBenchEmulator, summarizeRuns, SYSTEM_LABELS, type Backlog, type BenchEmulator, type Measurement, type SystemName, type SystemUnderTest } from './driver.js';
import { writeHerdChart } from './herd-chart.js';
import { HERD, runHerd, summarizeHerd, type HerdSummary } from './herd.js';
import { runMemory, type MemoryRun } from './memory.js';

const DOCS = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));
const CHART = fileURLToPath(new URL('../../../docs/herd-e2e.svg', import.meta.url));

interface Config {
  quick: boolean;
  runs: number;
  backlog: number;
  /** The throughput clock starts this long after the first 1% of the backlog is done. */
  warmupSeconds: number;
  capSeconds: number;
  retryBacklog: number;
  /** Fail-once messages drained before the retry path's clock starts (its warm-up). */
  retryWarmupCount: number;
  /** The seed reference's own retry backlog: at its pace the shared one would take half a minute a run. */
  retrySeedBacklog: number;
  /** A safety stop for the retry path, from the backlog's load: every system drains well within it. */
  retryCapSeconds: number;
  memoryBacklog: number;
  memoryPasses: number;
  herdMessages: number;
  /** The herd's baselines take minutes to drain; past this they are reported as lower bounds. */
  herdCapSeconds: number;
}

interface Row {
  scenario: string;
  system: SystemName;
  concurrency: number;
  /** Messages in the timed backlog. */
  backlog: number;
  messagesPerSecond: { median: number; min: number; max: number };
  callsPerMessage: number;
  /** The same, split by SQS API action (ReceiveMessage, DeleteMessageBatch...), pooled over the runs. */
  callsPerMessageByAction: Record<string, number>;
  /** The system's own CPU time per 1,000 messages: its cost, apart from the emulator's. */
  cpuMsPerThousand: number;
  peakRssMb: number;
}

/** The herd's three runs: our defaults, the same with backpressure off, and the seed's worker. */
const HERD_POLICIES = {
  backpressure: 'requeue defaults (backpressure on)',
  plain: 'requeue, backpressure off (retry policy alone)',
  seed: 'seed reference loop',
} as const;

const RETRY_ONCE: Backlog['simulate'] = { outcome: 'transient', failTimes: 1 };
/** requeue's retry path at the bench's 0-1 s delay: fixed 1 s with full jitter. */
const REQUEUE_RETRY_POLICY = JSON.stringify({ jitter: { type: 'full' }, types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 }, maxDelayMs: 1000 } } });
/**
 * The retry path measures retries, so requeue runs it with backpressure off: with every
 * first call failing, its circuit breaker would (rightly) read an outage and defer the
 * backlog instead. docs/benchmarks.md explains; the herd measures the breaker.
 */
const retryPathSystems = (config: Config): SystemUnderTest[] => [
  { system: 'requeue-no-backpressure', concurrency: 50, env: { RETRY_POLICY: REQUEUE_RETRY_POLICY } },
  { system: 'raw-sdk-loop', concurrency: 50 },
  { system: 'sqs-consumer', concurrency: 50 },
  { system: 'seed-reference', concurrency: 1, backlog: { count: config.retrySeedBacklog, warmupCount: config.retrySeedBacklog / 10 } },
];

function configFrom(argv: string[]): Config {
  const quick = argv.includes('--quick');
  return quick
    ? { quick, runs: 1, backlog: 1000, warmupSeconds: 0, capSeconds: 1, retryBacklog: 500, retryWarmupCount: 50, retrySeedBacklog: 100, retryCapSeconds: 20, memoryBacklog: 5000, memoryPasses: 2, herdMessages: 50, herdCapSeconds: 30 }
    : { quick, runs: 3, backlog: 20_000, warmupSeconds: 0.5, capSeconds: 1.4, retryBacklog: 10_000, retryWarmupCount: 1000, retrySeedBacklog: 1000, retryCapSeconds: 30, memoryBacklog: 100_000, memoryPasses: 3, herdMessages: HERD.messages, herdCapSeconds: 72 };
}

/**
 * Every system `runs` times, in rounds (A B C, A B C, ...) rather than one system's runs
 * back to back: a slow spell of the machine then lands on every system alike instead of
 * on one system's whole row, which steadies the ratios between them.
 */
async function inRounds(
  emulator: BenchEmulator,
  scenario: string,
  suts: readonly SystemUnderTest[],
  backlog: Backlog,
  config: Config,
  timing: { capSeconds: number; warmupSeconds: number } = { capSeconds: config.capSeconds, warmupSeconds: config.warmupSeconds },
): Promise<Row[]> {
  const results: Measurement[][] = suts.map(() => []);
  for (let run = 0; run < config.runs; run++) {
    for (const [i, sut] of suts.entries()) results[i]!.push(await measure(emulator, sut, { ...backlog, ...sut.backlog }, timing.capSeconds, timing));
  }
  return suts.map((sut, i) => {
    const runs = results[i]!;
    const row: Row = {
      scenario,
      system: sut.system,
      concurrency: sut.concurrency,
      backlog: sut.backlog?.count ?? backlog.count,
      messagesPerSecond: summarizeRuns(runs.map((r) => r.messagesPerSecond)),
      callsPerMessage: summarizeRuns(runs.map((r) => r.callsPerMessage)).median,
      callsPerMessageByAction: callsPerMessageByAction(runs),
      cpuMsPerThousand: summarizeRuns(runs.map((r) => r.cpuMsPerThousand)).median,
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    };
    progress(`  ${scenario}: ${SYSTEM_LABELS[sut.system]} @${sut.concurrency}: ${row.messagesPerSecond.median.toFixed(0)} msg/s, ${row.callsPerMessage.toFixed(3)} calls/msg`);
    return row;
  });
}

const HAPPY_SYSTEMS: SystemUnderTest[] = [
  { system: 'requeue', concurrency: 10 },
  { system: 'raw-sdk-loop', concurrency: 10 },
  { system: 'sqs-consumer', concurrency: 10 },
  { system: 'sqs-consumer-batch', concurrency: 10 },
  { system: 'requeue', concurrency: 50 },
  { system: 'requeue-no-backpressure', concurrency: 50 },
  { system: 'raw-sdk-loop', concurrency: 50 },
  { system: 'sqs-consumer', concurrency: 50 },
  { system: 'sqs-consumer-batch', concurrency: 50 },
  { system: 'seed-reference', concurrency: 1 },
];

/** Rewrites the docs section (and the herd chart, when the document has its timelines) from a saved `--json` document. */
async function renderSaved(path: string): Promise<void> {
  const saved = JSON.parse(readFileSync(path, 'utf8')) as Document;
  const document = { ...saved, targets: targets(saved.happy, saved.retry, saved.memory, saved.herd, saved.config.herdMessages) };
  if (saved.herd.every((run) => Array.isArray(run.timeline))) await writeHerdChart(saved.herd, CHART);
  replaceDocsSection(DOCS, 'peers', renderDocs(document));
}

/**
 * Our defaults `runs` times and one run of each baseline, all at once: each run has its own
 * queue and its own downstream, so they meet only in CPU, and the herd is light on it (a
 * few hundred calls a second). The baselines take minutes to drain, so they are capped;
 * they run on after our defaults have drained, so the two groups resolve apart.
 */
function startHerdComparison(emulator: BenchEmulator, config: Config): { defaults: Promise<HerdSummary>; baselines: Promise<HerdSummary[]> } {
  progress(`herd, end to end: ${config.herdMessages} webhooks, dependency down ${HERD.outageMs / 1000} s then ${HERD.capacityPerSecond}/s; baselines capped at ${config.herdCapSeconds} s`);
  const webhook = (system: SystemName) => (url: string): SystemUnderTest => ({ system, concurrency: 50, env: { WORKER_HANDLER: 'webhook', WEBHOOK_URL: url, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
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

async function main(argv: string[]): Promise<void> {
  const savedIndex = argv.indexOf('--render-docs');
  if (savedIndex !== -1) return renderSaved(argv[savedIndex + 1] ?? '');
  const config = configFrom(argv);
  const started = Date.now();
  const emulator = await startBenchEmulator();
  try {
    const happy: Row[] = [];
    for (const [handler, simulate] of [
      ['no-op', undefined],
      ['5 ms I/O', { outcome: 'ok', durationMs: 5 }],
    ] as const) {
      progress(`happy path, ${handler} handler, ${config.backlog.toLocaleString('en-US')} messages, ${config.runs} run(s) each`);
      happy.push(...(await inRounds(emulator, `happy ${handler}`, HAPPY_SYSTEMS, { count: config.backlog, simulate }, config)));
    }

    progress(`retry path: every message fails once (retry after 0-1 s), ${config.retryBacklog.toLocaleString('en-US')} messages`);
    // The emulator hands out the oldest messages first, so a run over a fixed backlog is
    // every original, then every copy: timed from its first completions, it would time the
    // copies alone, a happy path in disguise. So the clock runs over the whole backlog,
    // from its load to its last completion, after a warm-up backlog of the same kind; the
    // backlog is large enough that the copies' pass outlasts the 1 s delay of the last ones.
    const retry = await inRounds(emulator, 'retry path', retryPathSystems(config), { count: config.retryBacklog, warmupCount: config.retryWarmupCount, simulate: RETRY_ONCE }, config, {
      capSeconds: config.retryCapSeconds,
      warmupSeconds: 0,
    });

    const herdRuns = startHerdComparison(emulator, config);
    const defaults = await herdRuns.defaults;
    // The baselines run on to their cap, light on CPU (a sequential loop and delayed
    // retries), so memory runs beside them rather than after: it reads RSS, which CPU does
    // not move, and the baselines' requests can only be slowed, never added to.
    progress(`memory: requeue @50, ${config.memoryBacklog.toLocaleString('en-US')} messages at 1 ms, ${config.memoryPasses} passes, beside the herd's baselines`);
    const memory = await runMemory(emulator, config.memoryBacklog, config.memoryPasses);
    const herd = [defaults, ...(await herdRuns.baselines)];
    for (const run of herd) progress(`  ${run.policy}: ${run.downstreamRequests.median} requests, ${run.drained ? 'drained' : 'stopped'} at ${run.drainSeconds.median.toFixed(0)} s, peak ${run.peakAfterRecovery.median}/s, ${run.deadLettered} dead-lettered`);

    const document = { config, happy, retry, memory, herd, targets: targets(happy, retry, memory, herd, config.herdMessages), durationSeconds: (Date.now() - started) / 1000 };
    if (argv.includes('--update-docs')) {
      await writeHerdChart(herd, CHART);
      replaceDocsSection(DOCS, 'peers', renderDocs(document));
    }
    if (wantsJson(argv)) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    else process.stdout.write(`${renderDocs(document)}\n`);
  } finally {
    await emulator.stop();
  }
}

type Document = { config: Config; happy: Row[]; retry: Row[]; memory: MemoryRun; herd: HerdSummary[]; targets: Target[]; durationSeconds: number };

interface Target {
  measure: string;
  target: string;
  measured: string;
  met: boolean;
}

function targets(happy: Row[], retry: Row[], memory: MemoryRun, herd: readonly HerdSummary[], messages: number): Target[] {
  const rate = (scenario: string, system: SystemName, concurrency: number, rows = happy) => rows.find((r) => r.scenario === scenario && r.system === system && r.concurrency === concurrency)?.messagesPerSecond.median ?? NaN;
  const best = (scenario: string, systems: SystemName[]) => Math.max(...happy.filter((r) => r.scenario === scenario && systems.includes(r.system)).map((r) => r.messagesPerSecond.median));
  const ratio = (a: number, b: number) => a / b;
  const out: Target[] = [];
  // Three significant digits: two decimals would print 0.497 as a failing "0.50".
  const push = (measure: string, target: string, value: number, met: boolean, unit = '×') => out.push({ measure, target, measured: `${Number.isFinite(value) ? value.toPrecision(3) : value}${unit}`, met });
  for (const concurrency of [10, 50]) {
    for (const handler of ['no-op', '5 ms I/O']) {
      const r = ratio(rate(`happy ${handler}`, 'requeue', concurrency), rate(`happy ${handler}`, 'raw-sdk-loop', concurrency));
      push(`throughput vs raw SDK loop, ${handler}, @${concurrency}`, '≥ 0.8×', r, r >= 0.8);
    }
  }
  const requeueBest = (scenario: string) => Math.max(rate(scenario, 'requeue', 10), rate(scenario, 'requeue', 50));
  const sqsConsumerBest = (scenario: string) => best(scenario, ['sqs-consumer', 'sqs-consumer-batch']);
  // One instance of each at its best setting: requeue at maxInFlight 50, one sqs-consumer
  // at batchSize 10 (its maximum), whichever handler style is faster.
  const oneConsumer = (scenario: string) => Math.max(rate(scenario, 'sqs-consumer', 10), rate(scenario, 'sqs-consumer-batch', 10));
  for (const [handler, target] of [
    ['5 ms I/O', 2],
    ['no-op', 1],
  ] as const) {
    const single = ratio(rate(`happy ${handler}`, 'requeue', 50), oneConsumer(`happy ${handler}`));
    push(`throughput vs sqs-consumer at its best setting (one instance each), ${handler}`, `≥ ${target}×`, single, single >= target);
    const equal = ratio(requeueBest(`happy ${handler}`), sqsConsumerBest(`happy ${handler}`));
    push(`throughput vs sqs-consumer's best at any concurrency (five consumers at 50), ${handler}`, `≥ ${target}×`, equal, equal >= target);
  }
  for (const handler of ['no-op', '5 ms I/O']) {
    const r = ratio(requeueBest(`happy ${handler}`), rate(`happy ${handler}`, 'seed-reference', 1));
    push(`throughput vs seed reference, ${handler}`, '≥ 10×', r, r >= 10);
  }
  const happyCalls = Math.max(...happy.filter((r) => r.system === 'requeue').map((r) => r.callsPerMessage));
  push('SQS calls per message, happy path', '≤ 0.25', happyCalls, happyCalls <= 0.25, '');
  const requeueRetry = retry.find((r) => r.system === 'requeue-no-backpressure')!;
  push('SQS calls per message, fail-once retry path', '≤ 0.55', requeueRetry.callsPerMessage, requeueRetry.callsPerMessage <= 0.55, '');
  // Against the happy path in the same configuration: backpressure off, @50, no-op.
  const retryRatio = ratio(requeueRetry.messagesPerSecond.median, rate('happy no-op', 'requeue-no-backpressure', 50));
  push('retry-path throughput vs our happy path (@50, no-op, backpressure off)', '≥ 0.5×', retryRatio, retryRatio >= 0.5);
  push('peak RSS at the memory backlog', '< 200 MB', memory.peakMb, memory.peakMb < 200, ' MB');
  // A pass lasts about 10 s and V8 grows RSS in steps of a few MB, so a slope fitted over
  // one pass swings by ±15 MB/min between runs; RSS from one pass's end to the next, for
  // the same 100,000 messages again, is the steadier leak test (a leak of 50 bytes a
  // message would add 5 MB a pass). V8 finishes sizing its heap within the first pass or
  // the second, so the last pass is read.
  const growth = (memory.passEndMb.at(-1) ?? 0) - (memory.passEndMb.at(-2) ?? 0);
  push(`RSS growth over the last ${memory.messages.toLocaleString('en-US')} messages, after ${memory.passes - 1} warm-up pass(es) (no upward slope)`, '≤ 5 MB', growth, growth <= 5, ' MB');
  const herdOf = (policy: string) => herd.find((run) => run.policy === policy)!;
  const ours = herdOf(HERD_POLICIES.backpressure);
  const seed = herdOf(HERD_POLICIES.seed);
  push('herd: dead-lettered', '0', ours.deadLettered, ours.deadLettered === 0 && ours.drained, '');
  // A capped seed run's count is a lower bound, so the ratio can only be overstated.
  const herdRatio = ratio(ours.downstreamRequests.median, seed.downstreamRequests.median);
  push(`herd: downstream requests vs seed reference${seed.drained ? '' : ' (seed stopped at its cap)'}`, '≤ 0.7×', herdRatio, herdRatio <= 0.7 && ours.drained);
  const peak = ours.peakAfterRecovery.median / HERD.capacityPerSecond;
  push('herd: peak after recovery vs capacity', '≤ 2×', peak, peak <= 2);
  // Adaptive backpressure's targets: against the ideal of one call per message, a drain in
  // the outage plus N / capacity, and never more than the dependency admits.
  const callsPerMessage = ours.downstreamRequests.median / messages;
  push('backpressure: downstream calls per message', '≤ 1.3', callsPerMessage, callsPerMessage <= 1.3, '');
  const ideal = HERD.outageMs / 1000 + messages / HERD.capacityPerSecond;
  const drain = ours.drainSeconds.median / ideal;
  push(`backpressure: drain vs ideal (${ideal.toFixed(0)} s)`, '≤ 1.5×', drain, drain <= 1.5 && ours.drained);
  push('backpressure: peak after recovery vs capacity', '≤ 1.3×', peak, peak <= 1.3);
  for (const handler of ['no-op', '5 ms I/O']) {
    const onOff = ratio(rate(`happy ${handler}`, 'requeue', 50), rate(`happy ${handler}`, 'requeue-no-backpressure', 50));
    push(`backpressure: happy-path throughput on vs off, ${handler}, @50`, '≥ 0.95×', onOff, onOff >= 0.95);
  }
  return out;
}

function spread(values: { median: number; min: number; max: number }): string {
  const round = (n: number) => n.toFixed(0);
  return values.min === values.max ? round(values.median) : `${round(values.median)} (${round(values.min)}-${round(values.max)})`;
}

/** One column per SQS action any row called, so each system's cost reads call by call. */
function callsByActionTable(list: readonly Row[]): string {
  const actions = [...new Set(list.flatMap((r) => Object.keys(r.callsPerMessageByAction)))].sort();
  return markdownTable(list, [
    { header: 'scenario', value: (r) => r.scenario },
    { header: 'system', value: (r) => SYSTEM_LABELS[r.system] },
    { header: 'concurrency', value: (r) => r.concurrency },
    ...actions.map((action) => ({ header: action, value: (r: Row) => perMessage(r.callsPerMessageByAction[action]) })),
  ]);
}

/** Three decimals, except that a few calls over many messages read as "< 0.001", not as none. */
function perMessage(calls: number | undefined): string {
  if (calls === undefined) return '';
  return calls > 0 && calls < 0.0005 ? '< 0.001' : calls.toFixed(3);
}

/** Each system's retry path against its own happy path (no-op, same concurrency): what failing once costs it. */
function retryAgainstHappy(document: Document): string {
  const ratios = document.retry.map((r) => {
    const happy = document.happy.find((h) => h.scenario === 'happy no-op' && h.system === r.system && h.concurrency === r.concurrency);
    return `${SYSTEM_LABELS[r.system]} ${happy ? (r.messagesPerSecond.median / happy.messagesPerSecond.median).toFixed(2) : '?'}×`;
  });
  return `Each against its own happy path (no-op, same concurrency): ${ratios.join('; ')}.`;
}

function renderDocs(document: Document): string {
  const rows = (list: Row[], backlog: number) =>
    markdownTable(list, [
      { header: 'scenario', value: (r) => r.scenario },
      { header: 'system', value: (r) => `${SYSTEM_LABELS[r.system]}${r.backlog === backlog ? '' : ` (${r.backlog.toLocaleString('en-US')} messages)`}` },
      { header: 'concurrency', value: (r) => r.concurrency },
      { header: 'messages/s median (min-max)', value: (r) => spread(r.messagesPerSecond) },
      { header: 'SQS calls/message', value: (r) => r.callsPerMessage.toFixed(3) },
      { header: 'CPU ms per 1,000 messages', value: (r) => r.cpuMsPerThousand.toFixed(0) },
      { header: 'peak RSS (MB)', value: (r) => r.peakRssMb.toFixed(0) },
    ]);
  const { config, memory } = document;
  return [
    `Measured with \`npm run bench${config.quick ? ' -- --quick' : ''}\` in ${document.durationSeconds.toFixed(0)} s on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; fauxqs in its own process behind a call-counting proxy, each system in its own process, ${config.runs} run(s) per row taken in rounds (every system once, then again), median and range. Throughput is timed from ${config.warmupSeconds} s after the first 1% of the backlog is done (the same warm-up for every system) until the queue is empty or ${config.capSeconds} s more have passed.`,
    '',
    '### Targets',
    '',
    markdownTable(document.targets, [
      { header: 'measure', value: (t) => t.measure },
      { header: 'target', value: (t) => t.target },
      { header: 'measured', value: (t) => t.measured },
      { header: 'met', value: (t) => (t.met ? 'yes' : '**no**') },
    ]),
    '',
    `### Happy path (${config.backlog.toLocaleString('en-US')} messages)`,
    '',
    rows(document.happy, config.backlog),
    '',
    `### Retry path (${config.retryBacklog.toLocaleString('en-US')} messages, each failing once, retried after 0-1 s)`,
    '',
    `Timed over the whole backlog, from its load until the last message is done, after a warm-up of ${config.retryWarmupCount.toLocaleString('en-US')} messages of the same kind. The seed reference retries after its own 3 s.`,
    '',
    rows(document.retry, config.retryBacklog),
    '',
    retryAgainstHappy(document),
    '',
    '### SQS calls per message, by action',
    '',
    "Counted at the emulator, pooled over the runs; warm-up messages and their calls included. requeue's GetQueueAttributes is its one read, at start-up, of the queue's visibility timeout and redrive policy.",
    '',
    callsByActionTable([...document.happy, ...document.retry]),
    '',
    `### Memory (requeue @50, ${memory.messages.toLocaleString('en-US')} messages at 1 ms, loaded ${memory.passes} times into one process, while the herd's capped baselines finish)`,
    '',
    `RSS start ${memory.startMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB, end ${memory.endMb.toFixed(0)} MB; after each pass ${memory.passEndMb.map((mb) => mb.toFixed(0)).join(', ')} MB; slope over the last pass ${memory.slopeMbPerMinute.toFixed(1)} MB/min; ${memory.messagesPerSecond.toFixed(0)} messages/s.`,
    '',
    `### Thundering herd, end to end (${config.herdMessages.toLocaleString('en-US')} webhooks; down ${HERD.outageMs / 1000} s, then ${HERD.capacityPerSecond} requests/s, 429 + Retry-After: 1 beyond)`,
    '',
    `Our defaults run ${config.runs} time(s) (median and range), all at once and beside one run of each baseline, each with its own queue and downstream; the baselines stop at ${config.herdCapSeconds} s, where "≥" and ">" mark lower bounds.`,
    '',
    markdownTable(document.herd, [
      { header: 'policy', value: (h) => h.policy },
      { header: 'downstream requests', value: (h) => `${h.drained ? '' : '≥ '}${spread(h.downstreamRequests)}` },
      { header: 'drain (s)', value: (h) => `${h.drained ? '' : '> '}${spread(h.drainSeconds)}` },
      { header: 'peak requests/s after recovery', value: (h) => spread(h.peakAfterRecovery) },
      { header: 'dead-lettered', value: (h) => h.deadLettered },
    ]),
    '',
    '![Downstream requests per second for each run, with the capacity line](herd-e2e.svg)',
  ].join('\n');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  progress(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
