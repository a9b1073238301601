import { cpus, totalmem } from 'node:os';
import { markdownTable } from '../report.js';
import { SYSTEM_LABELS } from './driver.js';
import type { Document } from './document.js';
import type { Row } from './rows.js';
import { HERD } from './herd.js';
import { LARGE_PREFETCH, LARGE_PREFETCH_SCENARIO, LATENCY_BASELINE_SCENARIO, LATENCY_MS, requestsPerMillion } from './latency.js';
import { pairedRatio } from './rounds.js';
import { STEADY, steadyBacklog, steadyTiming } from './feature-rows.js';

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

/** The rows with every SQS call 15 ms away, and what a million messages cost in requests. */
function latencySection(document: Document): string[] {
  if (document.latency.length === 0) return [];
  const backlog = steadyBacklog(document.config);
  const timing = steadyTiming(document.config);
  return [
    `### At a region's round trip (every SQS call ${LATENCY_MS} ms away at the proxy; ${backlog.toLocaleString('en-US')} messages, timed ` +
      `after ${timing.warmupSeconds} s of warm-up for ${timing.capSeconds} s)`,
    '',
    "SQS in a region answers in 10-30 ms, loopback in 0.1 ms. requeue's 0 ms rows run in the same rounds as the 15 ms rows of their handler " +
      '(5 ms @50, 50 ms @200), at equal settings.',
    '',
    rows(document.latency, backlog),
    '',
    ...(document.idle
      ? [
          `Idle, requeue at its defaults on an empty queue for ${document.idle.seconds} s: ` +
            `${document.idle.callsPerMinute.toFixed(1)} SQS calls a minute (${callsByAction(document.idle.callsPerMinuteByAction)}).`,
          '',
        ]
      : []),
    ...largePrefetchLine(document.latency),
    `SQS requests per million messages: ${document.latency.map(requestsLine).join('; ')}.`,
    '',
  ];
}

/** requeue with a larger prefetch at 15 ms, against its own 0 ms row of the same rounds. */
function largePrefetchLine(latency: Row[]): string[] {
  const of = (scenario: string) => latency.find((r) => r.system === 'requeue' && r.concurrency === 50 && r.scenario === scenario);
  const ratio = pairedRatio(of(LARGE_PREFETCH_SCENARIO), of(LATENCY_BASELINE_SCENARIO));
  if (Number.isNaN(ratio)) return [];
  return [
    `With \`WORKER_PREFETCH=${LARGE_PREFETCH}\` (four times \`maxInFlight\`; not a target, the default bound is \`maxInFlight\`) the 5 ms ` +
      `handler @50 at ${LATENCY_MS} ms ran at ${ratio.toFixed(3)}× requeue's own 0 ms row at the defaults, median of the rounds' ratios.`,
    '',
  ];
}

/** The steady rows (more rounds, a longer warm-up), under their heading and what they compare. */
function steadySection(document: Document, rowsOf: Row[] | undefined, title: string, description: string): string[] {
  if (!rowsOf || rowsOf.length === 0) return [];
  const backlog = steadyBacklog(document.config);
  const heading =
    `### ${title} (${backlog.toLocaleString('en-US')} messages, ${STEADY.runs} rounds, timed after ${STEADY.warmupSeconds} s of ` +
    `warm-up for ${STEADY.capSeconds} s)`;
  return [heading, '', description, '', rows(rowsOf, backlog), ''];
}

const FEATURE_COST =
  'The same worker at its defaults, with `WORKER_BACKPRESSURE=off`, and with its handler trusting the body (no schema): the backpressure and ' +
  "body-schema targets above are read here. The happy path's rows compare them too, but one of their 1.4 s windows spreads by ±20%, wider " +
  'than the 5% the targets allow.';
const TRACING =
  'The same worker with no OpenTelemetry SDK (as shipped), with the Node SDK preloaded (a span per delivery, its batch span processor ' +
  "exporting to memory), with the same SDK handing back bare spans (the SDK's own cost per span: nothing set on them, no context made " +
  'active), and with `WORKER_TRACING=off`. The longer warm-up keeps V8 compiling the SDK in the first seconds, once per worker, out of the window.';

/** requeue with its handler guarded by Redis, beside requeue without, and what the guard asks of Redis. */
function idempotencySection(document: Document): string[] {
  const run = document.idempotency;
  if (!run) return [];
  const rate = (system: string) => run.rows.find((r) => r.system === system)?.messagesPerSecond.median ?? Number.NaN;
  return [
    `### Idempotency (${document.config.backlog.toLocaleString('en-US')} messages, 5 ms handler @50, a real redis-server)`,
    '',
    `With \`WORKER_IDEMPOTENCY=redis://…\` every message is claimed (\`SET NX\`) before its handler runs and completed (\`SET\`) before its ` +
      `delete: ${run.storeCallsPerMessage.toFixed(2)} Redis commands per message, counted by Redis itself. Throughput ` +
      `${(rate('requeue-idempotency') / rate('requeue')).toFixed(2)}× requeue without it, side by side.`,
    '',
    rows(run.rows, document.config.backlog),
    '',
  ];
}

/** How and where the run was made. */
function preamble(document: Document): string {
  const { config } = document;
  return (
    `Measured with \`npm run bench${config.quick ? ' -- --quick' : ''}\` in ${document.durationSeconds.toFixed(0)} s on ${cpus().length} ` +
    `× ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; fauxqs in its own process ` +
    `behind a call-counting proxy (${config.cpuLayout ?? 'the emulator left to the scheduler'}), each system in its own process, ` +
    `${config.runs} run(s) per row taken in rounds (every system once, each round starting one system further on), median and range; a ` +
    `ratio target between two rows of the same rounds is the median of their rounds' ratios. Throughput is timed from ` +
    `${config.warmupSeconds} s after the first 1% of the backlog is done (the same warm-up for every system) until the queue is empty or ` +
    `${config.capSeconds} s more have passed; SQS calls per message are the calls over that window (counted at the proxy) per message ` +
    `done in it, so a system's start-up and the messages it still holds when the run stops count for none.`
  );
}

/** One row per system and scenario: throughput, calls, CPU and memory. */
function rows(list: Row[], backlog: number): string {
  return markdownTable(list, [
    { header: 'scenario', value: (r) => r.scenario },
    { header: 'system', value: (r) => `${SYSTEM_LABELS[r.system]}${r.backlog === backlog ? '' : ` (${r.backlog.toLocaleString('en-US')} messages)`}` },
    { header: 'concurrency', value: (r) => r.concurrency },
    { header: 'messages/s median (min-max)', value: (r) => spread(r.messagesPerSecond) },
    { header: 'SQS calls/message', value: (r) => r.callsPerMessage.toFixed(3) },
    { header: 'CPU ms per 1,000 messages', value: (r) => r.cpuMsPerThousand.toFixed(0) },
    { header: 'peak RSS (MB)', value: (r) => r.peakRssMb.toFixed(0) },
  ]);
}

/**
 * The run as docs: `summary` for docs/benchmarks.md (how it was run, the targets, the
 * happy and retry paths, the herd), `detail` for docs/benchmarks-detail.md (what each
 * feature costs, the round-trip rows, calls by action, memory).
 */
export function renderDocs(document: Document): { summary: string; detail: string } {
  return { summary: renderSummary(document), detail: renderDetail(document) };
}

function renderSummary(document: Document): string {
  const { config } = document;
  return [
    preamble(document),
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
    ...batchSection(document),
    `### Retry path (${config.retryBacklog.toLocaleString('en-US')} messages, each failing once, retried after 0-1 s)`,
    '',
    `Timed over the whole backlog, from its load until the last message is done, after a warm-up of ` +
      `${config.retryWarmupCount.toLocaleString('en-US')} messages of the same kind. The seed reference retries after its own 3 s.`,
    '',
    rows(document.retry, config.retryBacklog),
    '',
    retryAgainstHappy(document),
    '',
    ...herdSection(document),
  ].join('\n');
}

function renderDetail(document: Document): string {
  const { memory } = document;
  return [
    ...steadySection(document, document.featureCost, 'What backpressure and a body schema cost', FEATURE_COST),
    ...steadySection(document, document.tracing, 'Tracing', TRACING),
    ...idempotencySection(document),
    ...latencySection(document),
    '### SQS calls per message, by action',
    '',
    "Counted at the emulator over each run's timed window, pooled over the runs. The retry path's window starts after a warm-up backlog has " +
      "drained, so its calls include those for the messages still held at the end. requeue's GetQueueAttributes, its one read of the queue's " +
      'visibility timeout and redrive policy at start-up, falls before the window.',
    '',
    callsByActionTable([...document.happy, ...document.latency, ...document.retry]),
    '',
    `### Memory (requeue @50, ${memory.messages.toLocaleString('en-US')} messages at 1 ms, loaded ${memory.passes} times into one process, ` +
      `while the herd's capped baselines finish)`,
    '',
    `RSS start ${memory.startMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB, end ${memory.endMb.toFixed(0)} MB; after each pass ` +
      `${memory.passEndMb.map((mb) => mb.toFixed(0)).join(', ')} MB; slope over the last pass ${memory.slopeMbPerMinute.toFixed(1)} MB/min; ` +
      `${memory.messagesPerSecond.toFixed(0)} messages/s.`,
  ].join('\n');
}

/** The batch handlers on a bulk sink: one call per batch, whatever it holds. */
function batchSection(document: Document): string[] {
  if (!document.batch?.length) return [];
  return [
    `### Batch handlers (${document.config.backlog.toLocaleString('en-US')} messages, a bulk sink called once per batch)`,
    '',
    "requeue's batch handler (`WORKER_HANDLER=simulation-batch`, 10 messages per call, `SIMULATION_BULK_SINK_MS`), " +
      'five sqs-consumers with `handleMessageBatch`, and the raw loop, each calling the sink once per batch it holds, in the same rounds.',
    '',
    rows(document.batch, document.config.backlog),
    '',
  ];
}

function herdSection(document: Document): string[] {
  const { config } = document;
  return [
    `### Thundering herd, end to end (${config.herdMessages.toLocaleString('en-US')} webhooks; down ${HERD.outageMs / 1000} s, then ` +
      `${HERD.capacityPerSecond} requests/s, 429 + Retry-After: 1 beyond)`,
    '',
    `Our defaults run ${config.runs} time(s) (median and range), all at once and beside one run of each baseline, each with its own queue and ` +
      `downstream; the baselines stop at ${config.herdCapSeconds} s, where "≥" and ">" mark lower bounds.`,
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
  ];
}

/** One latency row's SQS requests per million messages. */
function requestsLine(row: Row): string {
  return `${SYSTEM_LABELS[row.system]} @${row.concurrency}, ${row.scenario}: ${requestsPerMillion(row.callsPerMessage).toLocaleString('en-US')}`;
}

/** Idle calls a minute by SQS action: `ReceiveMessage 2.9, …`. */
function callsByAction(byAction: Record<string, number>): string {
  return Object.entries(byAction)
    .map(([action, n]) => `${action} ${n.toFixed(1)}`)
    .join(', ');
}
