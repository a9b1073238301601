/**
 * One run of the engine alone (the public `SqsWorker`, no HTTP, no emulator) against an
 * in-memory queue, in its own process: the unit of `npm run bench:tracing` and
 * `npm run bench:engine-latency` (and the single-tenant rows of `npm run bench:tenants`). argv[2] is a `RunSpec` as JSON. Prints one JSON line,
 * a `RunResult`, timed from the worker's start to the last delete.
 */
import { SqsWorker, type SqsWorkerOptions } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { TRACING_MODES, type RunResult, type RunSpec } from './runs.js';

const QUEUE_URL = 'http://127.0.0.1/000000000000/engine-alone';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** The bench queue's redrive: the sixth receive of a message moves it to the DLQ instead. */
const MAX_RECEIVE_COUNT = 5;

/**
 * The SQS fake with the spec's backlog: every call answers after `latencyMs` (give or
 * take up to `latencySpreadMs`, evenly), or after a turn of the event loop at 0, as a
 * socket's response would. A message given back (visibility 0) is received again first,
 * as SQS would; the redrive moves a message received `MAX_RECEIVE_COUNT` times out at its
 * next receive (counted), so the rows show whether giving messages back ever costs one
 * its place in the queue.
 */
function loadedQueue(spec: RunSpec): MemorySqs {
  const answerAfter = () => {
    const latencyMs = spec.latencyMs + (spec.latencySpreadMs ?? 0) * (2 * Math.random() - 1);
    return new Promise<void>((resolve) => (latencyMs > 0 ? setTimeout(resolve, latencyMs) : setImmediate(resolve)));
  };
  const queue = new MemorySqs({ queueUrl: QUEUE_URL, maxReceiveCount: MAX_RECEIVE_COUNT, beforeAnswer: answerAfter, history: false });
  const attributes = spec.tracedIn ? { traceparent: { DataType: 'String', StringValue: TRACEPARENT } } : undefined;
  for (let n = 0; n < spec.messages; n++) queue.add(JSON.stringify({ id: n }), attributes ? { attributes } : {});
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

/** The spec's handler: a timer of `handlerMs`, or of the slowdown's for the last messages started. */
function handlerOf(spec: RunSpec): () => Promise<void> {
  const { slowdown } = spec;
  let started = 0;
  return () => {
    started++;
    const ms = slowdown !== undefined && started > spec.messages - slowdown.lastMessages ? slowdown.handlerMs : spec.handlerMs;
    return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  };
}

async function run(spec: RunSpec): Promise<RunResult> {
  const queue = loadedQueue(spec);
  const worker = new SqsWorker({
    sqs: queue.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    handler: handlerOf(spec),
    maxInFlight: spec.maxInFlight,
    ...(spec.prefetch === undefined ? {} : { prefetch: spec.prefetch }),
    ...(spec.pollers === undefined ? {} : { pollers: spec.pollers }),
    visibilityTimeoutSeconds: 30,
    // The run is timed to the last delete; a short long poll lets the worker stop at once after.
    waitTimeSeconds: 1,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    tracing: await tracingOption(spec),
    ...(spec.tenants ? { tenants: { key: 'body.tenant' } } : {}),
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  await worker.start();
  await queue.whenEmpty();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
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
