import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRetryPolicy, RetryableError } from '@requeue/retry';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqsWorker } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq';
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const workers: SqsWorker[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop({ drainTimeoutMs: 0 })));
  exporter.reset();
});

async function startWorker(fake: MemorySqs, failFirst: boolean) {
  const worker = new SqsWorker({
    sqs: fake.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    handler: ({ attempt }) => (failFirst && attempt === 1 ? Promise.reject(new RetryableError('503', { errorType: 'TEMPORARY' })) : Promise.resolve()),
    retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }),
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    batchWaitMs: 1,
    tracing: { tracerProvider },
  });
  workers.push(worker);
  await worker.start();
  return worker;
}

/**
 * The process spans of the first `count` attempts, in attempt order. Not in the order they
 * finished: an attempt's span ends once its message has settled, and the retry it sent
 * may run and settle first.
 */
async function spansOf(count: number) {
  await vi.waitFor(() => expect(exporter.getFinishedSpans().length).toBeGreaterThanOrEqual(count), { timeout: 2000 });
  const byAttempt = (attempt: number) => exporter.getFinishedSpans().find((span) => span.attributes['requeue.attempt'] === attempt);
  return Array.from({ length: count }, (_, index) => byAttempt(index + 1));
}

const nineAttributes = Object.fromEntries(
  Array.from({ length: 9 }, (_, i): [string, MessageAttributeValue] => [`a${i}`, { DataType: 'String', StringValue: String(i) }]),
);

describe('trace context within the 10-attribute budget (a fake that keeps AWSTraceHeader, as SQS does)', () => {
  it('carries the context of a message with 9 attributes in AWSTraceHeader alone, and the retry stays in the trace', async () => {
    const fake = new MemorySqs({ queueUrl: QUEUE_URL });
    await startWorker(fake, true);
    fake.add('{"id":"full"}', { attributes: nineAttributes, traceHeader: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' });
    const [first, second] = await spansOf(2);
    fake.close();

    const copy = fake.sent[0]!;
    expect(Object.keys(copy.attributes).sort()).toEqual([...Object.keys(nineAttributes), 'x-retry'].sort());
    expect(copy.traceHeader).toBe(`Root=1-5759e988-bd862e3fe1be46a994272793;Parent=${first!.spanContext().spanId};Sampled=1`);
    expect(first!.parentSpanContext?.spanId).toBe('53995c3f42cd8ad8');
    expect(second!.spanContext().traceId).toBe('5759e988bd862e3fe1be46a994272793');
    expect(second!.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
  });

  it('adds traceparent to a copy when there is room, and AWSTraceHeader always', async () => {
    const fake = new MemorySqs({ queueUrl: QUEUE_URL });
    await startWorker(fake, true);
    fake.add('{"id":"roomy"}');
    const [first] = await spansOf(2);
    fake.close();
    const { traceId, spanId } = first!.spanContext();
    expect(fake.sent[0]!.attributes.traceparent?.StringValue).toBe(`00-${traceId}-${spanId}-01`);
    expect(fake.sent[0]!.traceHeader).toBe(`Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=1`);
  });

  it('with tracing off, records nothing and adds nothing to a copy', async () => {
    const fake = new MemorySqs({ queueUrl: QUEUE_URL });
    const worker = new SqsWorker({
      sqs: fake.client,
      queueUrl: QUEUE_URL,
      deadLetterQueueUrl: DLQ_URL,
      handler: ({ attempt }) => (attempt === 1 ? Promise.reject(new RetryableError('503', { errorType: 'TEMPORARY' })) : Promise.resolve()),
      retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }),
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
      batchWaitMs: 1,
      tracing: false,
    });
    workers.push(worker);
    await worker.start();
    fake.add('{"id":"off"}', { attributes: { traceparent: { DataType: 'String', StringValue: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } } });
    await vi.waitFor(() => expect(fake.sent).toHaveLength(1), { timeout: 2000 });
    fake.close();
    expect(fake.sent[0]!.traceHeader).toBeUndefined();
    expect(fake.sent[0]!.attributes.traceparent?.StringValue).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
