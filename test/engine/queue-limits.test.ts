import { createRetryPolicy } from '@requeue/retry';
import { SqsWorker, type WorkerLogger } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';
const DLQ_URL = 'http://sqs.local/000000000000/jobs-dlq';

function recordingLogger(lines: string[]): WorkerLogger {
  const record = (_fields: object, message: string) => void lines.push(message);
  return { debug: record, info: record, warn: record, error: record };
}

/** Starts and stops a worker on a fake whose queues (this one and its DLQ) take `maximumMessageSize` bytes; returns its warnings. */
async function startWarnings(maximumMessageSize: number): Promise<string[]> {
  const sqs = new MemorySqs({ queueUrl: QUEUE_URL, maximumMessageSize });
  const lines: string[] = [];
  const worker = new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    handler: async () => undefined,
    retryPolicy: createRetryPolicy(),
    logger: recordingLogger(lines),
    waitTimeSeconds: 0,
  });
  await worker.start();
  sqs.close();
  await worker.stop();
  return lines.filter((line) => line.includes('MaximumMessageSize'));
}

describe("the worker checks its queues' size limits at start", () => {
  it('warns, naming the setting to change, when a dead letter of a message as large as the queue takes would have no room for its reason', async () => {
    // The fake answers for both queues alike: a queue and DLQ of the same limit leave no room.
    expect(await startWarnings(1_048_576)).toEqual([expect.stringContaining("Set the queue's MaximumMessageSize to at most 1040384")]);
  });
});
