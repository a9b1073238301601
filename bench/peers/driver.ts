import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuLayout } from './cpu-layout.js';
import type { BenchEmulator } from './bench-emulator.js';
import { callCounts, cpuSeconds, rssMb, summarizeMeasurement, type Measurement, type TimedWindow } from './measurement.js';
import { workerNodeOptions } from '@requeue/cdk';
import { startWorkerProcess, waitUntilReady } from '@requeue/test/support/worker-process';

export type { BenchEmulator };

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startBenchEmulator(): Promise<BenchEmulator> {
  const { command, args } = cpuLayout().emulatorCommand([process.execPath, here('./counting-emulator.js')]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench emulator exited with ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString().split('\n')[0]!) as { port: number }).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    async control<T>(path: string, body: object = {}) {
      const response = await fetch(`${endpoint}/__bench/${path}`, { method: 'POST', body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`bench emulator ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const REQUEUE_SYSTEMS = [
  'requeue',
  'requeue-no-backpressure',
  'requeue-no-schema',
  'requeue-tracing-sdk',
  'requeue-tracing-sdk-floor',
  'requeue-tracing-off',
  'requeue-idempotency',
  'requeue-batch',
] as const;
type RequeueSystem = (typeof REQUEUE_SYSTEMS)[number];
export type SystemName = RequeueSystem | 'raw-sdk-loop' | 'sqs-consumer' | 'sqs-consumer-batch' | 'seed-reference';
const isRequeue = (system: SystemName): system is RequeueSystem => (REQUEUE_SYSTEMS as readonly string[]).includes(system);

export interface SystemUnderTest {
  system: SystemName;
  concurrency: number;
  /** Extra environment: RETRY_POLICY, WORKER_HANDLER, WEBHOOK_URL... */
  env?: Record<string, string>;
  /** This system's own backlog, over the scenario's: for a system too slow to drain the shared one. */
  backlog?: Partial<Backlog>;
  /** This system's own scenario, over the shared one: a baseline run in the same rounds (requeue at 0 ms beside the latency rows). */
  scenario?: string;
  /** Processes sharing the queue, as an autoscaled service runs them; CPU and memory are read from the first. @default 1 */
  instances?: number;
}

export const SYSTEM_LABELS: Record<SystemName, string> = {
  requeue: 'requeue',
  'requeue-no-backpressure': 'requeue, backpressure off',
  'requeue-no-schema': 'requeue, body unchecked (no schema)',
  'requeue-tracing-sdk': 'requeue, OpenTelemetry SDK (batch processor, in-memory exporter)',
  'requeue-tracing-sdk-floor': 'requeue, the same SDK, bare spans (nothing set on them, no context made active)',
  'requeue-tracing-off': 'requeue, tracing off (WORKER_TRACING=off)',
  'requeue-idempotency': 'requeue, idempotency on (Redis)',
  'requeue-batch': 'requeue, batch handler (simulation-batch, 10 per call)',
  'raw-sdk-loop': 'raw SDK loop',
  'sqs-consumer': 'sqs-consumer 15 (handleMessage, batchSize 10)',
  'sqs-consumer-batch': 'sqs-consumer 15 (handleMessageBatch)',
  'seed-reference': 'seed reference loop',
};

/** The OpenTelemetry SDK a tracing row preloads into the worker. */
const PRELOADS: Partial<Record<SystemName, string>> = {
  'requeue-tracing-sdk': './systems/tracing-sdk.js',
  'requeue-tracing-sdk-floor': './systems/tracing-sdk-floor.js',
};

interface Started {
  child: ChildProcess;
  ready: Promise<void>;
}

/** `sut.instances` processes on one queue: the first one's pid is the one measured; all are killed at the end. */
async function startFleet(
  sut: SystemUnderTest,
  endpoint: string,
  queueUrl: string,
  dlqUrl: string,
): Promise<{ first: Started; children: ChildProcess[]; ready: Promise<void> }> {
  const fleet = await Promise.all(Array.from({ length: sut.instances ?? 1 }, () => startSystem(sut, endpoint, queueUrl, dlqUrl)));
  return { first: fleet[0]!, children: fleet.map((started) => started.child), ready: Promise.all(fleet.map((started) => started.ready)).then(() => undefined) };
}

/** Starts a system as its own process, pointed at the queue through the counting proxy. */
export async function startSystem(sut: SystemUnderTest, endpoint: string, queueUrl: string, dlqUrl: string): Promise<Started> {
  const base = { PATH: process.env.PATH ?? '', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', AWS_REGION: 'us-east-1' };
  if (isRequeue(sut.system)) {
    const preload = PRELOADS[sut.system];
    const worker = await startWorkerProcess({
      WORKER_QUEUE_URL: queueUrl,
      WORKER_DLQ_URL: dlqUrl,
      AWS_ENDPOINT_URL: endpoint,
      WORKER_HANDLER: 'simulation',
      WORKER_MAX_IN_FLIGHT: String(sut.concurrency),
      LOG_LEVEL: 'error',
      // As deployed: the stack sizes V8 from the default 512 MB task.
      NODE_OPTIONS: preload === undefined ? workerNodeOptions(512) : `${workerNodeOptions(512)} --import=${here(preload)}`,
      ...(sut.system === 'requeue-tracing-off' ? { WORKER_TRACING: 'off' } : {}),
      ...(sut.system === 'requeue-no-backpressure' ? { WORKER_BACKPRESSURE: 'off' } : {}),
      // The simulation handler's body is checked by its zod schema in the engine; this one trusts it.
      ...(sut.system === 'requeue-no-schema' ? { WORKER_HANDLER: 'simulation-unchecked' } : {}),
      ...(sut.system === 'requeue-batch' ? { WORKER_HANDLER: 'simulation-batch' } : {}),
      ...sut.env,
    });
    return { child: worker.child, ready: waitUntilReady(worker, 30_000) };
  }
  const script = { 'raw-sdk-loop': 'raw-loop', 'sqs-consumer': 'sqs-consumer', 'sqs-consumer-batch': 'sqs-consumer', 'seed-reference': 'seed-reference' }[
    sut.system
  ];
  const child = spawn(process.execPath, [here(`./systems/${script}.js`)], {
    env: {
      ...base,
      BENCH_QUEUE_URL: queueUrl,
      BENCH_ENDPOINT: endpoint,
      BENCH_CONCURRENCY: String(sut.concurrency),
      BENCH_MODE: sut.system === 'sqs-consumer-batch' ? 'batch' : 'message',
      ...sut.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${sut.system} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return { child, ready };
}

/** Resident set size of a process, from /proc, in MB. */
export interface Backlog {
  count: number;
  /** Merged into each `{ id }` body: the simulation outcome. */
  simulate?: object;
  /**
   * How many times the backlog is loaded: each time the queue empties, the next pass
   * loads it again into the same running system (a standing workload, for memory).
   */
  passes?: number;
  /**
   * Messages of the same kind loaded and drained before the backlog, with the clock
   * starting when the backlog is loaded: the timed code is then warm whatever the run's
   * shape. (A retry run completes nothing until its copies come back, so a warm-up
   * counted from its first completions would fall after its whole first pass.)
   */
  warmupCount?: number;
  /** Every SQS call waits this long at the proxy: a region's round trip. @default 0 */
  latencyMs?: number;
}

export interface MeasureOptions {
  /** Called once the system is ready: the herd starts its outage there. */
  onStart?: () => void;
  /**
   * Run the clock from `onStart` (the system ready) rather than from the end of a
   * warm-up: the throughput is then everything completed over the whole run.
   */
  clockFromStart?: boolean;
  /**
   * Load the backlog once every process is ready, just before `onStart`, instead of
   * before they start: otherwise a fleet's first processes work through it, against a
   * dependency whose outage has not started its clock, while the last ones boot.
   */
  loadWhenReady?: boolean;
  /**
   * Seconds after the first 1% of the backlog is done before the throughput clock starts: a
   * process that just started runs unoptimised code, which a long-running worker does
   * not. Every system gets the same warm-up; a backlog drained within it is timed whole.
   */
  warmupSeconds?: number;
}

let sequence = 0;

/** A queue with a DLQ (redrive 5), every call to it `latencyMs` away at the proxy. */
async function createQueues(emulator: BenchEmulator, name: string, latencyMs: number | undefined) {
  const dlq = await emulator.control<{ queueUrl: string; queueArn: string }>('create', { queue: `${name}-dlq` });
  const queue = await emulator.control<{ queueUrl: string }>('create', {
    queue: name,
    ...(latencyMs === undefined ? {} : { latencyMs: { default: latencyMs } }),
    attributes: { VisibilityTimeout: '30', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: 5 }) },
  });
  return { queue, dlq };
}

/**
 * One measurement: a fresh queue (with a DLQ, redrive 5) loaded with the backlog inside
 * the emulator, the system started, and the clock running from the end of its warm-up
 * until the queue is empty or `capSeconds` more pass. Calls are counted at the proxy, per
 * queue, so measurements on different queues may run side by side.
 */
export async function measure(
  emulator: BenchEmulator,
  sut: SystemUnderTest,
  backlog: Backlog,
  capSeconds: number,
  options: MeasureOptions = {},
): Promise<Measurement> {
  const name = `bench-${process.pid}-${sequence++}`;
  const { queue, dlq } = await createQueues(emulator, name, backlog.latencyMs);
  const load = (count: number) => emulator.control('load', { queue: name, count, simulate: backlog.simulate });
  const warmupCount = backlog.warmupCount ?? 0;
  const loadFirstPass = () => load(warmupCount > 0 ? warmupCount : backlog.count);
  if (!options.loadWhenReady) await loadFirstPass();
  const fleet = await startFleet(sut, emulator.endpoint, queue.queueUrl, dlq.queueUrl);
  const pid = fleet.first.child.pid!;
  try {
    await fleet.ready;
    if (options.loadWhenReady) await loadFirstPass();
    options.onStart?.();
    const spawnedAt = Date.now();
    const cpuAtStart = cpuSeconds(pid) ?? 0;
    const run = await watchUntilDone({ emulator, name, pid, backlog, capSeconds, options, spawnedAt, cpuAtStart, load });
    return await summarizeMeasurement({ emulator, name, pid, spawnedAt, capSeconds, cpuAtStart, ...run });
  } finally {
    await Promise.all(fleet.children.map(killed));
    await emulator.control('delete', { queue: name });
    await emulator.control('delete', { queue: `${name}-dlq` });
  }
}

interface WatchedRun {
  emulator: BenchEmulator;
  name: string;
  pid: number;
  backlog: Backlog;
  capSeconds: number;
  options: MeasureOptions;
  spawnedAt: number;
  cpuAtStart: number;
  load: (count: number) => Promise<unknown>;
}

/**
 * Polls the queue's depth every 25 ms until the backlog is done or the timed window has
 * run `capSeconds`: loads the backlog after a warm-up pass and for each further pass,
 * starts the clock once the warm-up is over, and samples the process's RSS every 200 ms.
 */
async function watchUntilDone(run: WatchedRun) {
  const { emulator, name, pid, backlog, capSeconds, options, spawnedAt, cpuAtStart, load } = run;
  const remaining = async () => {
    const depth = await emulator.control<{ ready: number; delayed: number; inflight: number }>('depth', { queue: name });
    return depth.ready + depth.delayed + depth.inflight;
  };
  /** Where the throughput clock started: after the warm-up (in seconds or in messages), or at ready with `clockFromStart`. */
  const windowFrom = async (at: number, processed: number): Promise<TimedWindow> => ({
    at,
    processed,
    cpu: cpuSeconds(pid) ?? cpuAtStart,
    calls: await callCounts(emulator, name),
  });
  let window: TimedWindow | undefined = options.clockFromStart ? { at: spawnedAt, processed: 0, cpu: cpuAtStart, calls: {} } : undefined;
  let firstDoneAt: number | undefined;
  const warmupMs = (options.warmupSeconds ?? 0) * 1000;
  const warmupCount = backlog.warmupCount ?? 0;
  let warmingUp = warmupCount > 0;
  let loaded = warmingUp ? warmupCount : backlog.count;
  let left: number;
  const firstDoneCount = Math.max(1, Math.floor(backlog.count / 100));
  const passEndedAt: number[] = [];
  const rss: Array<[number, number]> = [];
  let lastSample = 0;
  for (;;) {
    left = await remaining();
    const now = Date.now();
    if (warmingUp && left === 0) {
      await load(backlog.count);
      loaded += backlog.count;
      left = backlog.count;
      warmingUp = false;
      window = await windowFrom(Date.now(), loaded - left);
      continue;
    }
    if (left === 0) passEndedAt.push((now - spawnedAt) / 1000);
    if (left === 0 && passEndedAt.length < (backlog.passes ?? 1)) {
      await load(backlog.count);
      loaded += backlog.count;
      left = backlog.count;
    }
    // Completions under way, not a single message between a delete and its copy's send.
    if (firstDoneAt === undefined && !warmingUp && left <= backlog.count - firstDoneCount) firstDoneAt = now;
    if (window === undefined && firstDoneAt !== undefined && now - firstDoneAt >= warmupMs) window = await windowFrom(now, loaded - left);
    if (now - lastSample >= 200) {
      const mb = rssMb(pid);
      if (mb !== undefined) rss.push([(now - spawnedAt) / 1000, mb]);
      lastSample = now;
    }
    if (left === 0 || (window !== undefined && now - window.at >= capSeconds * 1000) || now - spawnedAt > warmupMs + (capSeconds + 30) * 1000) break;
    await sleep(25);
  }
  return { window, firstDoneAt, loaded, left, rss, passEndedAt };
}

export { callsPerMessageByAction, summarizeRuns, type Measurement } from './measurement.js';

function killed(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  return exited;
}
