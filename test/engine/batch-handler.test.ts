import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SqsWorker, SqsWorkerConfigError, type BatchHandler, type SqsWorkerOptions, type WorkerEvents } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { VirtualTime } from '@requeue/sqs/time';
import { MemoryIdempotencyStore } from '../sim/memory-idempotency-store.js';

// The engine with a batch handler, against the in-memory SQS in virtual time: SQS as it
// documents itself (ten messages per receive, several of a FIFO group in one receive).
const QUEUE_URL = 'http://sqs.local/000000000000/jobs';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq';

type Settled = WorkerEvents['settled'];
/** Virtual time starts here: retry state refuses clocks before 2020. */
const T0 = Date.UTC(2026, 0, 1);
type Body = { id: string };

interface Run {
  sqs: MemorySqs;
  time: VirtualTime;
  worker: SqsWorker<Body>;
  /** Each call's message ids, and the virtual time it started. */
  batches: Array<{ ids: string[]; at: number }>;
  settled: Settled[];
  warnings: string[];
}

interface Setup {
  size?: number;
  windowMs?: number;
  queueUrl?: string;
  extra?: Partial<SqsWorkerOptions<Body>>;
}

function start(handler: BatchHandler<Body>, ids: readonly string[], { size, windowMs, queueUrl = QUEUE_URL, extra = {} }: Setup = {}): Run {
  const time = new VirtualTime(T0);
  const sqs = new MemorySqs({ queueUrl, maxReceiveCount: 10, visibilityTimeoutSeconds: 30, now: time.now, timers: time });
  for (const id of ids) sqs.add(JSON.stringify({ id }), { id, ...(queueUrl.endsWith('.fifo') ? { groupId: id.split('-')[0]! } : {}) });
  const batches: Run['batches'] = [];
  const warnings: string[] = [];
  const worker = new SqsWorker<Body>({
    sqs: sqs.client,
    queueUrl,
    deadLetterQueueUrl: queueUrl.endsWith('.fifo') ? `${DLQ_URL}.fifo` : DLQ_URL,
    batch: {
      handler: (messages, context) => {
        batches.push({ ids: messages.map((m) => m.body.id), at: time.now() });
        return handler(messages, context);
      },
      ...(size === undefined ? {} : { size }),
      ...(windowMs === undefined ? {} : { windowMs }),
    },
    retryPolicy: createRetryPolicy({ jitter: 'none', maxAttempts: 3, types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 5000 } } } }),
    waitTimeSeconds: 0,
    batchWaitMs: 0,
    backpressure: false,
    now: time.now,
    timers: time,
    logger: { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_fields, message) => void warnings.push(message) },
    ...extra,
  });
  const run: Run = { sqs, time, worker, batches, settled: [], warnings };
  worker.on('settled', (event) => run.settled.push(event));
  return run;
}

async function drain(run: Run): Promise<void> {
  await run.worker.start();
  expect(await run.time.runUntil(() => run.sqs.remaining === 0, run.time.now() + 3_600_000)).toBe(true);
  let stopped = false;
  const stopping = run.worker.stop().then(() => (stopped = true));
  await run.time.runUntil(() => stopped, run.time.now() + 600_000);
  await stopping;
}

const ids = (count: number, prefix = 'm') => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
const deadLetters = (run: Run) => run.sqs.sent.filter((m) => m.queueUrl.startsWith(DLQ_URL)).map((m) => (JSON.parse(m.body) as Body).id);
const outcomeOf = (run: Run, kind: Settled['outcome']['kind']) => run.settled.filter((s) => s.outcome.kind === kind).length;

describe('a batch handler', () => {
  it('takes ten received messages in one call, and costs about 0.2 SQS calls per message on the happy path', async () => {
    const run = start(async () => undefined, ids(100));
    await drain(run);
    expect(run.batches.map((b) => b.ids.length)).toEqual(Array(10).fill(10));
    expect(run.sqs.deleted).toHaveLength(100);
    // Receives that returned messages, and the deletes: the empty receives once the queue
    // is drained depend on how long it stays empty, not on the messages.
    const calls = run.sqs.receives.length + (run.sqs.calls.DeleteMessageBatch ?? 0) + (run.sqs.calls.DeleteMessage ?? 0);
    expect(calls / 100).toBeLessThanOrEqual(0.21);
  });

  it('settles each message by its own result: a success deleted, a retryable failure retried later, a permanent one dead-lettered with its reason', async () => {
    const run = start(
      async (messages) =>
        messages.map((m) => {
          if (m.body.id === 'm-01' && m.attempt === 1)
            return { messageId: m.messageId, ok: false, error: new RetryableError('bulk API timed out', { errorType: 'TEMPORARY' }) };
          if (m.body.id === 'm-02') return { messageId: m.messageId, ok: false, error: new NonRetryableError('row rejected', { errorType: 'CONSTRAINT' }) };
          return { messageId: m.messageId, ok: true };
        }),
      ids(5),
    );
    await drain(run);
    expect(deadLetters(run)).toEqual(['m-02']);
    const retried = run.settled.find((s) => s.outcome.kind === 'retry');
    expect(retried?.outcome).toMatchObject({ kind: 'retry', delaySeconds: 5 });
    // The retry ran alone, 5 s after the first batch: it was not held for the others.
    expect(run.batches.at(-1)).toEqual({ ids: ['m-01'], at: run.batches[0]!.at + 5000 + 50 });
    const dead = run.settled.find((s) => s.outcome.kind === 'dead-letter');
    expect(dead?.outcome).toMatchObject({ reason: 'non-retryable', errorType: 'CONSTRAINT' });
  });

  it('fails every message with the error a throw carries, each then retried by its own attempt count', async () => {
    let calls = 0;
    const run = start(async () => {
      calls += 1;
      if (calls === 1) throw new RetryableError('bulk endpoint 503', { errorType: 'TEMPORARY' });
    }, ids(4));
    await drain(run);
    expect(outcomeOf(run, 'retry')).toBe(4);
    expect(run.batches.map((b) => b.ids.length)).toEqual([4, 4]);
    expect(run.sqs.deleted).toHaveLength(4 + 4);
  });

  it('counts a message its result leaves out as failed, and says so', async () => {
    const run = start(
      async (messages) => messages.filter((m) => m.body.id !== 'm-00' || m.attempt > 1).map((m) => ({ messageId: m.messageId, ok: true as const })),
      ids(3),
    );
    await drain(run);
    const retry = run.settled.find((s) => s.outcome.kind === 'retry');
    expect(retry?.outcome).toMatchObject({ kind: 'retry' });
    expect(run.warnings.some((w) => w.includes('does not name each message'))).toBe(true);
    expect(deadLetters(run)).toEqual([]);
  });

  it('waits at most windowMs for more messages while handler slots are free', async () => {
    for (const windowMs of [undefined, 200]) {
      const run = start(async () => undefined, ids(3), windowMs === undefined ? {} : { windowMs });
      await drain(run);
      expect(run.batches).toEqual([{ ids: ids(3), at: T0 + (windowMs ?? 50) }]);
    }
  });

  it('leaves out of the batch a body its schema rejects (dead-lettered VALIDATION) and a message whose idempotency key already completed', async () => {
    const store = new MemoryIdempotencyStore(() => Date.now(), { fail: 0, hang: 0 }, seededRandom(1));
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (body: unknown) => ((body as Body).id === 'm-03' ? { issues: [{ message: 'id m-03 is refused' }] } : { value: body as Body }),
      },
    };
    const first = start(async () => undefined, ids(3), { extra: { idempotency: { store } } });
    await drain(first);
    const run = start(async () => undefined, ids(5), { extra: { idempotency: { store }, schema } });
    await drain(run);
    expect(run.batches.map((b) => b.ids)).toEqual([['m-04']]);
    expect(deadLetters(run)).toEqual(['m-03']);
    expect(run.settled.find((s) => s.outcome.kind === 'dead-letter')?.outcome).toMatchObject({ errorType: 'VALIDATION' });
    // Every original leaves the queue: run, skipped as done, or dead-lettered.
    expect(run.sqs.deleted).toHaveLength(5);
  });

  it('fails a message whose batch outlasts handlerTimeoutMs with a TimeoutError, and aborts the batch signal', async () => {
    let aborted: unknown;
    const run = start(
      (messages, { signal }) =>
        messages[0]!.attempt === 1
          ? new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject((aborted = signal.reason))))
          : Promise.resolve(),
      ids(2),
      { extra: { handlerTimeoutMs: 1000 } },
    );
    await drain(run);
    expect((aborted as Error).name).toBe('TimeoutError');
    expect(run.settled.filter((s) => s.outcome.kind === 'retry').map((s) => s.outcome)).toMatchObject([{ errorType: 'TEMPORARY' }, { errorType: 'TEMPORARY' }]);
    expect(outcomeOf(run, 'deleted')).toBe(2);
  });

  it('on a FIFO queue holds each group in order: one message per group per batch, and a failure gives back what follows it', async () => {
    const groupIds = [...ids(4, 'a'), ...ids(4, 'b')];
    const succeeded: string[] = [];
    const run = start(
      async (messages) =>
        messages.map((m) => {
          if (m.body.id === 'a-01' && m.attempt === 1)
            return { messageId: m.messageId, ok: false, error: new RetryableError('503', { errorType: 'TEMPORARY' }) };
          succeeded.push(m.body.id);
          return { messageId: m.messageId, ok: true };
        }),
      groupIds,
      { queueUrl: 'http://sqs.local/000000000000/jobs.fifo' },
    );
    await drain(run);
    expect(run.batches.every((b) => new Set(b.ids.map((id) => id[0])).size === b.ids.length)).toBe(true);
    expect(succeeded.filter((id) => id.startsWith('a'))).toEqual(ids(4, 'a'));
    expect(succeeded.filter((id) => id.startsWith('b'))).toEqual(ids(4, 'b'));
    expect(run.batches[0]!.ids.sort()).toEqual(['a-00', 'b-00']);
  });

  it('refuses a batch alongside a handler, and a size its handler slots could never fill', () => {
    const base = { sqs: new MemorySqs({ queueUrl: QUEUE_URL }).client, queueUrl: QUEUE_URL, deadLetterQueueUrl: DLQ_URL };
    const handler = async () => undefined;
    expect(() => new SqsWorker({ ...base, handler, batch: { handler } })).toThrow(SqsWorkerConfigError);
    expect(() => new SqsWorker({ ...base, maxInFlight: 5, batch: { handler, size: 10 } })).toThrow(/batch\.size.*at most maxInFlight \(5\)/);
    expect(() => new SqsWorker({ ...base, batch: { handler, windowMs: -1 } })).toThrow(/batch\.windowMs/);
    expect(() => new SqsWorker(base)).toThrow(/handler.*batch\.handler/);
  });

  it("runs the batch handler in a span of its own, linked to each message's process span", async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    // Files share worker processes: the global context manager is put back after the test.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    onTestFinished(() => context.disable());
    let active: string | undefined;
    const run = start(async () => void (active = trace.getActiveSpan()?.spanContext().spanId), ids(3), { extra: { tracing: { tracerProvider } } });
    await drain(run);
    const spans = exporter.getFinishedSpans();
    const batch = spans.find((span) => span.attributes['messaging.batch.message_count'] === 3)!;
    const messages = spans.filter((span) => span !== batch);
    expect(messages).toHaveLength(3);
    expect(active).toBe(batch.spanContext().spanId);
    expect(batch.links.map((link) => link.context.spanId).sort()).toEqual(messages.map((span) => span.spanContext().spanId).sort());
  });
});
