/**
 * One run of the engine alone (the public `SqsWorker`, no HTTP, no emulator) against an
 * in-memory queue, in its own process: the unit of `npm run bench:tracing` and
 * `npm run bench:engine-latency` (and the single-tenant rows of `npm run bench:tenants`). argv[2] is a `RunSpec` as JSON. Prints one JSON line,
 * a `RunResult`, timed from the worker's start to the last delete.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRetryPolicy, RetryableError } from '@requeue/retry';
import { SqsWorker, type SqsWorkerOptions, type WorkerMessage } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { TRACING_MODES, type RunResult, type RunSpec } from './spec.js';

const QUEUE_URL = 'http://127.0.0.1/000000000000/engine-alone';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** The bench queue's redrive: the sixth receive of a message moves it to the DLQ instead. */
const MAX_RECEIVE_COUNT = 5;

/** Messages kept in the fake queue ahead of the worker: the backlog is fed as it drains. */
const AHEAD = 2_000;

/**
 * The SQS fake with the spec's backlog: every call answers after `latencyMs` (give or
 * take up to `latencySpreadMs`, evenly), or after a turn of the event loop at 0, as a
 * socket's response would. A message given back (visibility 0) is received again first,
 * as SQS would; the redrive moves a message received `MAX_RECEIVE_COUNT` times out at its
 * next receive (counted), so the rows show whether giving messages back ever costs one
 * its place in the queue. The backlog is fed `AHEAD` messages at a time rather than loaded
 * whole: a worker's heap never holds its queue, and 100,000 messages held in this one made
 * the garbage collector's marking a third of the CPU charged to the engine.
 */
function loadedQueue(spec: RunSpec): MemorySqs {
  const attributes = spec.tracedIn ? { traceparent: { DataType: 'String', StringValue: TRACEPARENT } } : undefined;
  let added = 0;
  const feed = () => {
    for (const until = Math.min(spec.messages, added + AHEAD); added < until; added++)
      queue.add(JSON.stringify({ id: added }), attributes ? { attributes } : {});
  };
  const answerAfter = () => {
    if (queue.remaining < AHEAD / 2 && added < spec.messages) feed();
    const latencyMs = spec.latencyMs + (spec.latencySpreadMs ?? 0) * (2 * Math.random() - 1);
    return new Promise<void>((resolve) => (latencyMs > 0 ? setTimeout(resolve, latencyMs) : setImmediate(resolve)));
  };
  const queue = new MemorySqs({ queueUrl: QUEUE_URL, maxReceiveCount: MAX_RECEIVE_COUNT, beforeAnswer: answerAfter });
  feed();
  return queue;
}

/**
 * `sdk` starts the OpenTelemetry Node SDK as the peer bench's tracing rows preload it (batch
 * processor, in-memory exporter), registered globally as the worker app registers it;
 * `sdk-floor`, the same SDK with bare spans, as the peer bench's floor row preloads it.
 */
async function tracingOption(spec: RunSpec): Promise<SqsWorkerOptions<unknown>['tracing']> {
  if (spec.tracing === 'off') return false;
  if (spec.tracing === 'sdk') await import('../peers/systems/tracing-sdk.js');
  if (spec.tracing === 'sdk-floor') await import('../peers/systems/tracing-sdk-floor.js');
  return {};
}

/** The spec's handler: a timer of `handlerMs`, or of the slowdown's for the last messages started; with `failOnce`, a first attempt fails. */
function handlerOf(spec: RunSpec): (message: WorkerMessage) => Promise<void> {
  const { slowdown } = spec;
  let started = 0;
  return (message) => {
    if (spec.failOnce && message.attempt === 1) return Promise.reject(new RetryableError('first attempt fails', { errorType: 'TEMPORARY' }));
    started++;
    const ms = slowdown !== undefined && started > spec.messages - slowdown.lastMessages ? slowdown.handlerMs : spec.handlerMs;
    return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  };
}

/** V8's sampling profiler over the timed window only: start-up and module loading stay out of the flame graph. */
async function startProfiler(): Promise<{ stop: () => Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return { stop: async () => (await session.post('Profiler.stop')).profile };
}

async function run(spec: RunSpec): Promise<RunResult> {
  const queue = loadedQueue(spec);
  const worker = new SqsWorker({
    sqs: queue.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    handler: handlerOf(spec),
    maxInFlight: spec.maxInFlight,
    // The retry path's copies go back at once: what is measured is the work of a retry, not its wait.
    ...(spec.failOnce
      ? { retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }), backpressure: false as const }
      : {}),
    ...(spec.prefetch === undefined ? {} : { prefetch: spec.prefetch }),
    ...(spec.pollers === undefined ? {} : { pollers: spec.pollers }),
    visibilityTimeoutSeconds: 30,
    // The run is timed to the last delete; a short long poll lets the worker stop at once after.
    waitTimeSeconds: 1,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    tracing: await tracingOption(spec),
    ...(spec.tenants ? { tenants: { key: 'body.tenant' } } : {}),
  });
  const profiler = spec.profilePath === undefined ? undefined : await startProfiler();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await worker.start();
  await queue.whenEmpty();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (profiler) writeFileSync(spec.profilePath!, JSON.stringify(await profiler.stop()));
  const calls = Object.values(queue.calls).reduce((sum, n) => sum + n, 0);
  await worker.stop();
  queue.close();
  return {
    cpuMicrosPerMessage: (used.user + used.system) / spec.messages,
    messagesPerSecond: spec.messages / seconds,
    givenBackPerMessage: queue.madeVisible.length / spec.messages,
    mostReceives: queue.mostReceivesOfOne,
    redriven: queue.redriven,
    callsPerMessage: calls / spec.messages,
  };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as RunSpec;
if (!TRACING_MODES.includes(spec.tracing)) throw new Error(`tracing must be one of ${TRACING_MODES.join(', ')}, not ${JSON.stringify(spec.tracing)}`);
process.stdout.write(`${JSON.stringify(await run(spec))}\n`);
