/**
 * One run of the engine alone, against an in-memory queue, in its own process: the
 * tracing cost bench's unit (see main.ts). argv: <mode> <messages> <traced-in: 0|1>.
 * Prints one JSON line: CPU microseconds a message over the run, from the first receive
 * to the last delete.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, noMetrics, type SqsWorkerOptions } from '@requeue/sqs';
import { TRACING_MODES, type TracingMode } from './modes.js';


const QUEUE_URL = 'http://127.0.0.1/000000000000/tracing-cost';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Receives hand out the backlog ten at a time; deletes count what is done. */
class MemoryQueue {
  private next = 0;
  deleted = 0;
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(
    private readonly count: number,
    private readonly tracedIn: boolean,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  private async send(command: unknown): Promise<unknown> {
    // A turn of the event loop per call, as a response from a socket would take.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (command instanceof ReceiveMessageCommand) return { Messages: this.take(command.input.MaxNumberOfMessages ?? 1) };
    if (command instanceof DeleteMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      this.deleted += entries.length;
      if (this.deleted >= this.count) this.finish();
      return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
    }
    return {};
  }

  private take(max: number): Message[] {
    const messages: Message[] = [];
    for (; messages.length < max && this.next < this.count; this.next++) {
      const now = String(Date.now());
      messages.push({
        MessageId: `m-${this.next}`,
        ReceiptHandle: `r-${this.next}`,
        Body: JSON.stringify({ id: this.next }),
        Attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, ApproximateFirstReceiveTimestamp: now },
        ...(this.tracedIn ? { MessageAttributes: { traceparent: { DataType: 'String', StringValue: TRACEPARENT } } } : {}),
      });
    }
    return messages;
  }
}

/**
 * `sdk` starts the OpenTelemetry Node SDK as the peer bench's tracing rows preload it (batch
 * processor, in-memory exporter), registered globally as the worker app registers it.
 */
async function tracingOption(mode: TracingMode): Promise<SqsWorkerOptions<unknown>['tracing']> {
  if (mode === 'off') return false;
  if (mode === 'sdk') await import('../peers/systems/tracing-sdk.js');
  return {};
}

async function run(mode: TracingMode, count: number, tracedIn: boolean): Promise<void> {
  const queue = new MemoryQueue(count, tracedIn);
  const worker = new SqsWorker({
    sqs: queue.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    handler: async () => undefined,
    maxInFlight: 50,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    metrics: noMetrics,
    tracing: await tracingOption(mode),
  });
  const started = process.cpuUsage();
  await worker.start();
  await queue.done;
  const used = process.cpuUsage(started);
  await worker.stop();
  process.stdout.write(`${JSON.stringify({ mode, tracedIn, messages: count, cpuMicrosPerMessage: (used.user + used.system) / count })}\n`);
}

const [mode, messages, tracedIn] = process.argv.slice(2);
if (!TRACING_MODES.includes(mode as TracingMode)) throw new Error(`mode must be one of ${TRACING_MODES.join(', ')}, not ${JSON.stringify(mode)}`);
await run(mode as TracingMode, Number(messages ?? 100_000), tracedIn === '1');
