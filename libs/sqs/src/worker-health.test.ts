import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createRetryPolicy } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { SqsWorker } from './worker.js';

/** SQS whose receives hang until the test lets them return: a poll loop that is stuck. */
function hangingSqs() {
  const pending: Array<(value: unknown) => void> = [];
  const client = {
    send: (command: unknown) => {
      if (command instanceof ReceiveMessageCommand) return new Promise((resolve) => pending.push(resolve));
      return Promise.resolve({ Successful: [], Failed: [] });
    },
  } as unknown as SQSClient;
  return { client, release: () => pending.splice(0).forEach((resolve) => resolve({ Messages: [] })) };
}

describe('worker readiness', () => {
  it('reports not-ready once no receive has returned for longer than a long poll plus the pause cap, with slots free', async () => {
    let clock = 1_000_000;
    const sqs = hangingSqs();
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
    sqs.release();
    await worker.stop({ drainTimeoutMs: 0 });
  });
});
