import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { sqsHandler } from '@requeue/lambda';
import { createRetryPolicy, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDb, type LocalDynamoDb } from '../support/dynamodb.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
let dynamo: LocalDynamoDb;

beforeAll(async () => {
  dynamo = await startDynamoDb();
});
afterAll(async () => {
  await dynamo?.stop();
});

const withQueues = (queues: QueuePair) => ({ sqs: suite.emulator.sqs, queueUrl: queues.queueUrl, deadLetterQueueUrl: queues.dlqUrl });

async function drained(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

describe('the Lambda adapter against the SQS protocol (fauxqs)', () => {
  it('retries with a copy delayed by the policy, carrying x-retry, and reports the original done', async () => {
    const queues = await suite.emulator.createQueues();
    const seen: Array<Pick<WorkerMessage, 'attempt' | 'idempotencyKey'> & { at: number }> = [];
    const handler = sqsHandler(
      async (message) => {
        seen.push({ attempt: message.attempt, idempotencyKey: message.idempotencyKey, at: Date.now() });
        if (message.attempt === 1) throw new RetryableError('webhook answered 503', { errorType: 'TEMPORARY' });
      },
      { ...withQueues(queues), retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 2000 } } } }) },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler);
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"id":"hook-1"}' }]);
      await eventually(() => (seen.length === 2 ? true : undefined), 15_000, 'the retry');
    } finally {
      await mapping.stop();
    }
    // Reported done each time: the retry was a delayed copy, not a redelivery.
    expect(mapping.invocations.every((invocation) => invocation.failures.length === 0)).toBe(true);
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(await drained(queues)).toBe(true);
  });

  it('stops a handler before the invocation runs out, and reports its message to come back', async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 60 });
    let aborted = false;
    const handler = sqsHandler(
      (message) =>
        new Promise<void>((_, reject) =>
          message.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        ),
      { ...withQueues(queues), settleReserveMs: 500 },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler, { timeoutMs: 2_000 });
    const started = Date.now();
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"id":"slow"}' }]);
      await eventually(() => (mapping.invocations.length > 0 ? true : undefined), 10_000, 'the invocation to end');
    } finally {
      await mapping.stop();
    }
    expect(aborted).toBe(true);
    // Within the function's 2 s, with its 500 ms reserve to settle.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(mapping.invocations[0]!.failures).toHaveLength(1);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 0 });
    expect(await drained(queues)).toBeUndefined();
  });

  it('reports a message whose retry copy cannot be sent, rather than lose it', async () => {
    const queues = await suite.emulator.createQueues();
    const handler = sqsHandler(
      async () => {
        throw new RetryableError('down', { errorType: 'TEMPORARY' });
      },
      // Copies go to a queue that does not exist: the send fails, and so does hiding the original there.
      { ...withQueues(queues), queueUrl: `${queues.queueUrl}-gone`, maxReceiveCount: 5, visibilityTimeoutSeconds: 30 },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler);
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"id":"x"}' }]);
      await eventually(() => (mapping.invocations.length > 0 ? true : undefined), 10_000, 'the invocation');
    } finally {
      await mapping.stop();
    }
    expect(mapping.invocations[0]!.failures).toHaveLength(1);
    expect(await suite.emulator.depth(queues.queueUrl)).toMatchObject({ inFlight: 1 });
  });

  it('runs a job delivered three times once, with Powertools idempotency on DynamoDB', async () => {
    const queues = await suite.emulator.createQueues();
    const tableName = await dynamo.createIdempotencyTable();
    const ran: string[] = [];
    const handler = sqsHandler(
      async (message) => {
        ran.push((message.body as { id: string }).id);
      },
      { ...withQueues(queues), idempotency: { store: new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: dynamo.client }), key: (message) => (message.body as { id: string }).id } },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler, { batchSize: 1 });
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"id":"charge-1"}' }, { body: '{"id":"charge-1"}' }, { body: '{"id":"charge-1"}' }, { body: '{"id":"charge-2"}' }]);
      await eventually(() => drained(queues), 15_000, 'the queue to drain');
    } finally {
      await mapping.stop();
    }
    expect(ran.sort()).toEqual(['charge-1', 'charge-2']);
    expect(mapping.invocations.flatMap((invocation) => invocation.failures)).toEqual([]);
  });
});
