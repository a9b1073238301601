import { sqsBatchHandler } from '@requeue/lambda';
import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// Lambda's event source mapping delivering SQS events to `sqsBatchHandler`; the queue is
// the in-memory SQS, which returns several messages of a FIFO group in one receive as SQS does.
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq';
const policy = createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } });

async function runEvents(queueUrl: string, records: Array<{ id: string; groupId?: string }>, fail: (id: string, attempt: number) => Error | undefined) {
  const sqs = new MemorySqs({ queueUrl });
  for (const { id, groupId } of records) sqs.add(JSON.stringify({ id }), { id, ...(groupId ? { groupId } : {}) });
  const calls: string[][] = [];
  const handler = sqsBatchHandler<{ id: string }>(
    async (messages) => {
      calls.push(messages.map((m) => `${m.body.id}@${m.attempt}`));
      return messages.map((m) => {
        const error = fail(m.body.id, m.attempt);
        return error ? { messageId: m.messageId, ok: false, error } : { messageId: m.messageId, ok: true };
      });
    },
    {
      sqs: sqs.client,
      queueUrl,
      deadLetterQueueUrl: queueUrl.endsWith('.fifo') ? `${DLQ_URL}.fifo` : DLQ_URL,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 10,
      retryPolicy: policy,
    },
  );
  const arn = `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`;
  const mapping = await startEventSourceMapping(sqs.client, queueUrl, handler, { queueArn: arn });
  await vi.waitFor(() => expect(sqs.remaining).toBe(0), { timeout: 10_000 });
  sqs.close();
  await mapping.stop();
  return { sqs, calls, invocations: mapping.invocations };
}

describe('sqsBatchHandler', () => {
  it("hands an event's records to one call, retries a failed one by a delayed copy and dead-letters a permanent one with its reason", async () => {
    const ids = Array.from({ length: 10 }, (_, i) => ({ id: `m${i}` }));
    const { sqs, calls, invocations } = await runEvents('http://sqs.local/000000000000/jobs', ids, (id, attempt) => {
      if (id === 'm3' && attempt === 1) return new RetryableError('bulk API 503', { errorType: 'TEMPORARY' });
      if (id === 'm7') return new NonRetryableError('row rejected', { errorType: 'CONSTRAINT' });
      return undefined;
    });
    expect(calls[0]).toHaveLength(10);
    expect(calls.flat()).toContain('m3@2');
    // The retry went as a copy, so the event reported nothing back.
    expect(invocations[0]!.failures).toEqual([]);
    const dead = sqs.sent.filter((m) => m.queueUrl === DLQ_URL);
    expect(dead.map((m) => JSON.parse(m.body) as { id: string })).toEqual([{ id: 'm7' }]);
    expect(JSON.parse(dead[0]!.attributes['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', errorType: 'CONSTRAINT' });
  });

  it('on a FIFO queue calls with one message per group in order, and reports a failed head with the rest of its group', async () => {
    const records = [...['a0', 'a1', 'a2'].map((id) => ({ id, groupId: 'a' })), ...['b0', 'b1'].map((id) => ({ id, groupId: 'b' }))];
    const { calls, invocations } = await runEvents('http://sqs.local/000000000000/jobs.fifo', records, (id, attempt) =>
      id === 'a1' && attempt === 1 ? new RetryableError('503', { errorType: 'TEMPORARY' }) : undefined,
    );
    expect(calls.slice(0, 2)).toEqual([
      ['a0@1', 'b0@1'],
      ['a1@1', 'b1@1'],
    ]);
    expect(invocations[0]).toEqual({ records: ['a0', 'a1', 'a2', 'b0', 'b1'], failures: ['a1', 'a2'] });
    expect(calls.flat().filter((run) => run.startsWith('a'))).toEqual(['a0@1', 'a1@1', 'a1@2', 'a2@1']);
  });
});
