import { createRetryPolicy, type RetryPolicyInput } from '@requeue/retry';
import { SqsWorker, type MessageHandler, type SqsWorkerOptions } from '@requeue/sqs';
import type { Emulator, QueuePair } from './emulator.js';

/**
 * The engine in this process against the emulator, with test-friendly timings (1 s long
 * polls, 5 ms batches, fast poll backoff) and no jitter unless the policy asks. Push the
 * returned worker to a list the test file stops after each test.
 */
export async function startEngine(
  emulator: Emulator,
  queues: QueuePair,
  handler: MessageHandler,
  policy: RetryPolicyInput = {},
  extra: Partial<SqsWorkerOptions> = {},
): Promise<SqsWorker> {
  const worker = new SqsWorker({
    sqs: emulator.sqs,
    queueUrl: queues.queueUrl,
    deadLetterQueueUrl: queues.dlqUrl,
    handler,
    retryPolicy: createRetryPolicy({ jitter: 'none', ...policy }),
    waitTimeSeconds: 1,
    batchWaitMs: 5,
    pollBackoff: { initialMs: 50, maxMs: 500 },
    ...extra,
  });
  await worker.start();
  return worker;
}
