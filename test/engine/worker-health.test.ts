import { createRetryPolicy } from '@requeue/retry';
import { SqsWorker } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

describe('worker readiness', () => {
  it('reports not-ready once no receive has returned for longer than a long poll plus the pause cap, with slots free', async () => {
    let clock = 1_000_000;
    // An empty queue: the receive is a long poll that does not return while the test runs.
    const sqs = new MemorySqs({ queueUrl: 'http://sqs.local/000000000000/jobs' });
    const worker = new SqsWorker({
      sqs: sqs.client,
      queueUrl: 'http://sqs.local/000000000000/jobs',
      deadLetterQueueUrl: 'http://sqs.local/000000000000/jobs-dlq',
      handler: async () => undefined,
      retryPolicy: createRetryPolicy(),
      waitTimeSeconds: 20,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
      backpressure: { breaker: { maxCooldownMs: 5000 } },
      now: () => clock,
    });
    await worker.start();
    expect(worker.health().ready).toBe(true);
    // 20 s long poll + 10 s slack + 5 s pause cap.
    clock += 35_000;
    expect(worker.health().ready).toBe(true);
    clock += 1;
    expect(worker.health()).toMatchObject({ ready: false, live: true });
    sqs.close();
    await worker.stop({ drainTimeoutMs: 0 });
  });
});
