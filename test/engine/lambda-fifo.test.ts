import { sqsHandler } from '@requeue/lambda';
import { createRetryPolicy, RetryableError } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// A FIFO batch as SQS and Lambda deliver it: several messages of one group in one event
// (fauxqs returns one message per group per receive, so the emulator cannot show this).
const QUEUE_URL = 'http://sqs.local/000000000000/jobs.fifo';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq.fifo';

describe('the Lambda adapter on a FIFO batch', () => {
  it('stops a group at its first failure, reports it and the rest of its group unrun, and keeps group order', async () => {
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    for (const id of ['a0', 'a1', 'a2', 'a3']) sqs.add(JSON.stringify({ id }), { id, groupId: 'a' });
    for (const id of ['b0', 'b1']) sqs.add(JSON.stringify({ id }), { id, groupId: 'b' });
    const runs: string[] = [];
    const handler = sqsHandler(
      async (message) => {
        const { id } = message.body as { id: string };
        runs.push(`${id}@${message.attempt}`);
        if (id === 'a1' && message.attempt === 1) throw new RetryableError('downstream 503');
      },
      {
        sqs: sqs.client,
        queueUrl: QUEUE_URL,
        deadLetterQueueUrl: DLQ_URL,
        visibilityTimeoutSeconds: 30,
        maxReceiveCount: 10,
        retryPolicy: createRetryPolicy({ jitter: 'none', types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
      },
    );
    const mapping = await startEventSourceMapping(sqs.client, QUEUE_URL, handler, { queueArn: 'arn:aws:sqs:us-east-1:000000000000:jobs.fifo' });
    await vi.waitFor(() => expect(sqs.remaining).toBe(0), { timeout: 10_000 });
    sqs.close();
    await mapping.stop();

    // One event held both groups; a1 failed, so a1, a2 and a3 were reported and a2, a3 never ran in it.
    expect(mapping.invocations[0]).toEqual({ records: ['a0', 'a1', 'a2', 'a3', 'b0', 'b1'], failures: ['a1', 'a2', 'a3'] });
    expect(runs.filter((run) => run.startsWith('a'))).toEqual(['a0@1', 'a1@1', 'a1@2', 'a2@1', 'a3@1']);
    expect(runs.filter((run) => run.startsWith('b'))).toEqual(['b0@1', 'b1@1']);
    // The retry waited in SQS (the head hidden for its delay), never as a copy at the back of its group.
    expect(sqs.sent).toEqual([]);
  });
});
