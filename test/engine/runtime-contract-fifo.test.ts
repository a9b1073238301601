import { sqsHandler } from '@requeue/lambda';
import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { SqsWorker, type MessageHandler } from '@requeue/sqs';
import { describe, expect, it, vi } from 'vitest';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// FIFO as SQS behaves (several messages of a group per receive): the emulator returns one.
const QUEUE_URL = 'http://sqs.local/000000000000/orders.fifo';
const DLQ_URL = 'http://sqs.local/000000000000/orders-dlq.fifo';
const OPTIONS = {
  queueUrl: QUEUE_URL,
  deadLetterQueueUrl: DLQ_URL,
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 10,
  retryPolicy: createRetryPolicy({ maxAttempts: 3, jitter: 'none', types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
};

/** Two groups: in a, the second fails once; in b, the first is rejected for good. */
function fill(sqs: MemorySqs): void {
  for (const id of ['a0', 'a1', 'a2']) sqs.add(JSON.stringify({ id }), { id, groupId: 'a' });
  for (const id of ['b0', 'b1']) sqs.add(JSON.stringify({ id }), { id, groupId: 'b' });
}

function recording(runs: string[]): MessageHandler {
  return async (message) => {
    const { id } = message.body as { id: string };
    runs.push(`${id}@${message.attempt}`);
    if (id === 'a1' && message.attempt === 1) throw new RetryableError('downstream 503');
    if (id === 'b0') throw new NonRetryableError('rejected');
  };
}

type Runtime = (sqs: MemorySqs, handler: MessageHandler) => Promise<() => Promise<void>>;

const worker: Runtime = async (sqs, handler) => {
  const engine = new SqsWorker({ ...OPTIONS, sqs: sqs.client, handler, batchWaitMs: 0, waitTimeSeconds: 0 });
  await engine.start();
  return () => engine.stop();
};

const lambda: Runtime = async (sqs, handler) => {
  const mapping = await startEventSourceMapping(sqs.client, QUEUE_URL, sqsHandler(handler, { ...OPTIONS, sqs: sqs.client }), {
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:orders.fifo',
  });
  return async () => {
    sqs.close();
    await mapping.stop();
  };
};

describe.each([
  ['the worker', worker],
  ['the Lambda adapter', lambda],
])('one FIFO corpus, the same outcomes: %s', (_name, runtime) => {
  it('keeps each group in order through a retry and a dead letter', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    fill(sqs);
    const runs: string[] = [];
    const stop = await runtime(sqs, recording(runs));
    await vi.waitFor(() => expect(sqs.remaining).toBe(0), { timeout: 10_000 });
    await stop();
    expect(runs.filter((run) => run.startsWith('a'))).toEqual(['a0@1', 'a1@1', 'a1@2', 'a2@1']);
    expect(runs.filter((run) => run.startsWith('b'))).toEqual(['b0@1', 'b1@1']);
    const deadLetters = sqs.sent.filter((sent) => sent.queueUrl === DLQ_URL);
    expect(deadLetters.map((letter) => [JSON.parse(letter.body).id, JSON.parse(letter.attributes['x-dead-letter']!.StringValue!).reason])).toEqual([
      ['b0', 'non-retryable'],
    ]);
  });
});
