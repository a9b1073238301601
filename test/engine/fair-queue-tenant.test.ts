import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { SqsWorker, type SqsWorkerOptions } from '@requeue/sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// fauxqs drops a MessageGroupId sent to a standard queue; SQS fair queues keep it and return
// it on receive, as this fake does. So the tenant's path is tested here, on the fake.
const QUEUE_URL = 'http://sqs.local/000000000000/jobs';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq';
const workers: SqsWorker[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop({ drainTimeoutMs: 0 })));
});

/** `holdFirst`: the first handler waits for it, so that what follows starts from all that was received. */
async function startWorker(fake: MemorySqs, extra: Partial<SqsWorkerOptions> = {}, started: string[] = [], holdFirst?: () => Promise<unknown>) {
  const worker = new SqsWorker({
    ...extra,
    sqs: fake.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    handler: ({ body, attempt }) => {
      const { outcome, id } = body as { outcome: string; id?: string };
      if (id) started.push(id);
      if (holdFirst && started.length === 1) return holdFirst().then(() => undefined);
      if (outcome === 'flaky' && attempt === 1) return Promise.reject(new RetryableError('503', { errorType: 'TEMPORARY' }));
      if (outcome === 'broken') return Promise.reject(new NonRetryableError('declined'));
      return Promise.resolve();
    },
    retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }),
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    batchWaitMs: 1,
  });
  workers.push(worker);
  await worker.start();
  return worker;
}

describe('a fair queue (standard, MessageGroupId = tenant)', () => {
  it("keeps the tenant on a message's retry copy and on its dead letter", async () => {
    const fake = new MemorySqs({ queueUrl: QUEUE_URL });
    await startWorker(fake);
    fake.add('{"outcome":"flaky"}', { groupId: 'tenant-a' });
    fake.add('{"outcome":"broken"}', { groupId: 'tenant-b' });
    fake.add('{"outcome":"flaky"}');
    await vi.waitFor(() => expect(fake.deleted.length).toBe(5), { timeout: 3000 });
    fake.close();
    const copies = fake.sent.filter((sent) => sent.queueUrl === QUEUE_URL);
    expect(copies.map((copy) => copy.groupId).sort()).toEqual(['tenant-a', undefined]);
    const [deadLetter] = fake.sent.filter((sent) => sent.queueUrl === DLQ_URL);
    expect(deadLetter).toMatchObject({ groupId: 'tenant-b', deduplicationId: undefined });
  });

  it('with tenants keyed on the group, takes turns between a burst and a quiet tenant', async () => {
    const fake = new MemorySqs({ queueUrl: QUEUE_URL });
    for (let i = 0; i < 12; i++) fake.add(JSON.stringify({ outcome: 'ok', id: `a${i}` }), { groupId: 'noisy' });
    fake.add('{"outcome":"ok","id":"b0"}', { groupId: 'quiet' });
    const started: string[] = [];
    // One handler at a time, held until everything is received: the start order after it is the schedule.
    const allReceived = () => vi.waitFor(() => expect(fake.received).toHaveLength(13), { timeout: 3000 });
    await startWorker(fake, { tenants: { key: 'group' }, maxInFlight: 1, prefetch: 20 }, started, allReceived);
    await vi.waitFor(() => expect(started).toHaveLength(13), { timeout: 3000 });
    fake.close();
    expect(started.indexOf('b0')).toBeLessThanOrEqual(2);
  });
});
