/**
 * One run of the engine alone (the public `SqsWorker`, no HTTP, no emulator) against an
 * in-memory queue, in its own process: the unit of `npm run bench:tracing` and
 * `npm run bench:engine-latency`. argv[2] is a `RunSpec` as JSON. Prints one JSON line,
 * a `RunResult`, timed from the worker's start to the last delete.
 */
import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, type SqsWorkerOptions } from '@requeue/sqs';
import { TRACING_MODES, type RunResult, type RunSpec } from './runs.js';

const QUEUE_URL = 'http://127.0.0.1/000000000000/engine-alone';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** The bench queue's redrive: the sixth receive of a message moves it to the DLQ instead. */
const MAX_RECEIVE_COUNT = 5;

/**
 * Receives hand out the backlog ten at a time, deletes count what is done, and a message
 * given back (visibility 0) is handed out again first, as SQS would. Every call answers
 * after `latencyMs` (give or take up to `latencySpreadMs`, evenly), or after a turn of
 * the event loop at 0, as a socket's response would. Each message's receives are counted
 * as SQS counts them, and its redrive applies: a message received `MAX_RECEIVE_COUNT`
 * times is moved to the DLQ at its next receive (here, counted and done), so the rows
 * show whether giving messages back ever costs one its place in the queue.
 */
class MemoryQueue {
  private next = 0;
  private readonly givenBack: number[] = [];
  private readonly receives: Uint8Array;
  /** Messages deleted or redriven: the run ends when every one is. */
  private finished = 0;
  givenBackCount = 0;
  redriven = 0;
  mostReceives = 0;
  calls = 0;
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(private readonly spec: RunSpec) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.receives = new Uint8Array(spec.messages);
  }

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  private async send(command: unknown): Promise<unknown> {
    this.calls++;
    const latencyMs = this.spec.latencyMs + (this.spec.latencySpreadMs ?? 0) * (2 * Math.random() - 1);
    await new Promise<void>((resolve) => (latencyMs > 0 ? setTimeout(resolve, latencyMs) : setImmediate(resolve)));
    if (command instanceof ReceiveMessageCommand) return { Messages: this.take(command.input.MaxNumberOfMessages ?? 1) };
    if (command instanceof DeleteMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      this.completed(entries.length);
      return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
    }
    if (command instanceof ChangeMessageVisibilityBatchCommand) {
      const entries = command.input.Entries ?? [];
      for (const entry of entries) {
        if (entry.VisibilityTimeout !== 0) continue;
        this.givenBack.push(Number(entry.ReceiptHandle!.slice(2)));
        this.givenBackCount++;
      }
      return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
    }
    return {};
  }

  private completed(count: number): void {
    this.finished += count;
    if (this.finished >= this.spec.messages) this.finish();
  }

  private take(max: number): Message[] {
    const messages: Message[] = [];
    while (messages.length < max && this.givenBack.length > 0) this.receive(this.givenBack.shift()!, messages);
    for (; messages.length < max && this.next < this.spec.messages; this.next++) this.receive(this.next, messages);
    return messages;
  }

  private receive(n: number, into: Message[]): void {
    if (this.receives[n]! >= MAX_RECEIVE_COUNT) {
      this.redriven++;
      this.completed(1);
      return;
    }
    const receiveCount = ++this.receives[n]!;
    this.mostReceives = Math.max(this.mostReceives, receiveCount);
    into.push(this.message(n, receiveCount));
  }

  private message(n: number, receiveCount: number): Message {
    const now = String(Date.now());
    return {
      MessageId: `m-${n}`,
      ReceiptHandle: `r-${n}`,
      Body: JSON.stringify({ id: n }),
      Attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: now, ApproximateFirstReceiveTimestamp: now },
      ...(this.spec.tracedIn ? { MessageAttributes: { traceparent: { DataType: 'String', StringValue: TRACEPARENT } } } : {}),
    };
  }
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
  const queue = new MemoryQueue(spec);
  const worker = new SqsWorker({
    sqs: queue.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    handler: handlerOf(spec),
    maxInFlight: spec.maxInFlight,
    ...(spec.prefetch === undefined ? {} : { prefetch: spec.prefetch }),
    ...(spec.pollers === undefined ? {} : { pollers: spec.pollers }),
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    tracing: await tracingOption(spec),
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  await worker.start();
  await queue.done;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const calls = queue.calls;
  await worker.stop();
  return { cpuMicrosPerMessage: (used.user + used.system) / spec.messages, messagesPerSecond: spec.messages / seconds, givenBackPerMessage: queue.givenBackCount / spec.messages, mostReceives: queue.mostReceives, redriven: queue.redriven, callsPerMessage: calls / spec.messages };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as RunSpec;
if (!TRACING_MODES.includes(spec.tracing)) throw new Error(`tracing must be one of ${TRACING_MODES.join(', ')}, not ${JSON.stringify(spec.tracing)}`);
process.stdout.write(`${JSON.stringify(await run(spec))}\n`);
