import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import { SqsWorker, type WorkerMessage } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// SQS FIFO as SQS behaves: several messages of a group in one receive (fauxqs returns one).
const QUEUE_URL = 'http://sqs.local/000000000000/jobs.fifo';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq.fifo';

/** Messages `ids` of one group, in order, each body `{"id":…}`. */
function addGroup(sqs: MemorySqs, groupId: string, messageIds: readonly string[]): void {
  for (const id of messageIds) sqs.add(JSON.stringify({ id }), { id, groupId });
}

interface Run {
  id: string;
  attempt: number;
}

/** A worker on the fake whose handler fails as `fail` says, recording every run in order. */
function fifoWorker(sqs: MemorySqs, fail: (id: string, attempt: number) => Error | undefined, options: { backpressure?: boolean } = {}) {
  const runs: Run[] = [];
  const succeeded: string[] = [];
  const worker = new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    // Retries due at once (0 s): the head is back as soon as SQS allows, so the test
    // observes order, not waiting.
    retryPolicy: createRetryPolicy({ jitter: 'none', types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
    handler: async (message: WorkerMessage) => {
      const { id } = message.body as { id: string };
      runs.push({ id, attempt: message.attempt });
      const error = fail(id, message.attempt);
      if (error) throw error;
      succeeded.push(id);
    },
    maxInFlight: 10,
    batchWaitMs: 0,
    waitTimeSeconds: 0,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 10,
    // One 429 pauses the group's dependency here: the test is about what the pause does to order.
    backpressure: options.backpressure ? { rateLimitEvidence: 1 } : false,
  });
  return { worker, runs, succeeded };
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('FIFO order when SQS returns several messages of one group at once', () => {
  it('runs nothing behind a failed head: the rest run after it, in order', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    addGroup(sqs, 'a', ids('m', 5));
    const { worker, runs, succeeded } = fifoWorker(sqs, (id, attempt) => (id === 'm0' && attempt === 1 ? new RetryableError('downstream 503') : undefined));
    await worker.start();
    await vi.waitFor(() => expect(succeeded).toHaveLength(5));
    await worker.stop();
    // All five came in one receive, as real SQS may return them.
    expect(sqs.receives[0]).toEqual(ids('m', 5));
    expect(runs.map((r) => r.id)).toEqual(['m0', 'm0', 'm1', 'm2', 'm3', 'm4']);
    expect(succeeded).toEqual(ids('m', 5));
    // The messages held behind the head ran once, at their first attempt.
    expect(runs.filter((r) => r.id !== 'm0').every((r) => r.attempt === 1)).toBe(true);
    expect(runs.filter((r) => r.id === 'm0').map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('a deferral (the dependency answered 429) keeps the order and uses no attempt, for the head or the messages behind it', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    addGroup(sqs, 'a', ids('m', 4));
    let limited = false;
    const { worker, runs, succeeded } = fifoWorker(
      sqs,
      (id) => {
        if (id !== 'm0' || limited) return undefined;
        limited = true;
        return new RetryableError('429 from the API', { errorType: 'RATE_LIMIT', retryAfterMs: 1000 });
      },
      { backpressure: true },
    );
    await worker.start();
    await vi.waitFor(() => expect(succeeded).toHaveLength(4), { timeout: 10_000 });
    await worker.stop();
    expect(runs).toEqual([
      { id: 'm0', attempt: 1 },
      { id: 'm0', attempt: 1 },
      { id: 'm1', attempt: 1 },
      { id: 'm2', attempt: 1 },
      { id: 'm3', attempt: 1 },
    ]);
  });

  it('a dead-lettered head lets the rest run once its dead letter has landed; the dead letter records its group', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    addGroup(sqs, 'a', ids('m', 3));
    const { worker, succeeded } = fifoWorker(sqs, (id) => (id === 'm0' ? new NonRetryableError('invalid card') : undefined));
    await worker.start();
    await vi.waitFor(() => expect(succeeded).toEqual(['m1', 'm2']));
    await worker.stop();
    // Its own group in the FIFO DLQ, as SQS's redrive keeps it, and recorded in x-dead-letter too.
    const deadLetters = sqs.sent.filter((m) => m.queueUrl === DLQ_URL);
    expect(deadLetters).toMatchObject([{ body: '{"id":"m0"}', groupId: 'a', deduplicationId: 'm0' }]);
    expect(JSON.parse(deadLetters[0]!.attributes['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', messageGroupId: 'a' });
    expect(sqs.remaining).toBe(0);
  });

  it('keeps each group in order while groups run side by side, under failures anywhere in a group', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    for (const group of ['a', 'b', 'c']) addGroup(sqs, group, ids(`${group}`, 8));
    const failOnce = new Set(['a1', 'a5', 'b0', 'b7', 'c3', 'c4']);
    const { worker, succeeded } = fifoWorker(sqs, (id, attempt) => (failOnce.has(id) && attempt === 1 ? new RetryableError('timeout') : undefined));
    await worker.start();
    await vi.waitFor(() => expect(succeeded).toHaveLength(24));
    await worker.stop();
    for (const group of ['a', 'b', 'c']) expect(succeeded.filter((id) => id.startsWith(group))).toEqual(ids(group, 8));
  });
});
