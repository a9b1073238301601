import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { sqsHandler } from '@requeue/lambda';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { describe, expect, it, vi } from 'vitest';
import { dynamoDbForSuite } from '../support/dynamodb.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const dynamo = dynamoDbForSuite();

const withQueues = (queues: QueuePair) => ({ sqs: suite.emulator.sqs, queueUrl: queues.queueUrl, deadLetterQueueUrl: queues.dlqUrl });

/** Runs with these variables set in the environment, as QueueWorkerFunction sets them, and puts it back after. */
async function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await run();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

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

  it('keeps a FIFO group in order through a retry (the head hidden for its delay) and dead-letters into the FIFO DLQ', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true, maxReceiveCount: 30 });
    const runs: string[] = [];
    const handler = sqsHandler(
      async (message) => {
        const { id } = message.body as { id: string };
        runs.push(`${id}@${message.attempt}`);
        if (id === 'a1' && message.attempt === 1) throw new RetryableError('downstream 503', { errorType: 'TEMPORARY' });
        if (id === 'a2') throw new NonRetryableError('rejected');
      },
      { ...withQueues(queues), retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 } } } }) },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler);
    try {
      for (const id of ['a0', 'a1', 'a2', 'a3']) {
        await suite.emulator.sqs.send(
          new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify({ id }), MessageGroupId: 'a', MessageDeduplicationId: id }),
        );
      }
      await eventually(() => drained(queues), 20_000, 'the group to drain');
    } finally {
      await mapping.stop();
    }
    expect(runs).toEqual(['a0@1', 'a1@1', 'a1@2', 'a2@1', 'a3@1']);
    const [deadLetter] = await suite.emulator.drain(queues.dlqUrl);
    expect(JSON.parse(deadLetter!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', messageGroupId: 'a' });
  });

  it('takes its queues and policy from the environment QueueWorkerFunction sets', async () => {
    const queues = await suite.emulator.createQueues();
    const env = { WORKER_QUEUE_URL: queues.queueUrl, WORKER_DLQ_URL: queues.dlqUrl, RETRY_POLICY: '{"maxAttempts":1}' };
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    await withEnv(env, async () => {
      const handler = sqsHandler(
        async () => {
          throw new RetryableError('down', { errorType: 'TEMPORARY' });
        },
        { sqs: suite.emulator.sqs },
      );
      const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler);
      try {
        await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"id":"once"}' }]);
        await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 1 ? true : undefined), 10_000, 'the dead letter');
      } finally {
        await mapping.stop();
        stdout.mockRestore();
      }
    });
    // The default logger wrote the dead-lettered line the dashboard's by-cause table reads, as JSON on stdout.
    const line = written.map((chunk) => chunk.trim()).find((chunk) => chunk.includes('"msg":"dead-lettered"'));
    expect(JSON.parse(line!)).toMatchObject({
      level: 50,
      msg: 'dead-lettered',
      reason: 'max-attempts',
      deadLetterGroup: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    // One attempt, as RETRY_POLICY says: exhausted at once, not retried.
    const [deadLetter] = await suite.emulator.drain(queues.dlqUrl);
    expect(JSON.parse(deadLetter!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({
      reason: 'max-attempts',
      attempts: 1,
      errorType: 'TEMPORARY',
    });
  });

  it('one function on two queues sends each record’s retry back to the queue it came from', async () => {
    const [a, b] = [await suite.emulator.createQueues(), await suite.emulator.createQueues()];
    // QueueWorkerFunction's environment names queue A; B's records must not follow it there.
    const env = { WORKER_QUEUE_URL: a.queueUrl, WORKER_DLQ_URL: a.dlqUrl, RETRY_POLICY: '{"types":{"TEMPORARY":{"backoff":{"type":"fixed","delayMs":1000}}}}' };
    const calls: Array<{ body: string; attempt: number; messageId: string }> = [];
    await withEnv(env, async () => {
      const handler = sqsHandler(
        async (message) => {
          calls.push({ body: message.rawBody, attempt: message.attempt, messageId: message.messageId });
          if (message.attempt === 1) throw new RetryableError('down', { errorType: 'TEMPORARY' });
        },
        { sqs: suite.emulator.sqs },
      );
      const mappings = [
        await startEventSourceMapping(suite.emulator.sqs, a.queueUrl, handler),
        await startEventSourceMapping(suite.emulator.sqs, b.queueUrl, handler),
      ];
      try {
        await sendAll(suite.emulator.sqs, a.queueUrl, [{ body: 'from-a' }]);
        await sendAll(suite.emulator.sqs, b.queueUrl, [{ body: 'from-b' }]);
        const deliveredBy = (index: number) => mappings[index]!.invocations.flatMap((invocation) => invocation.records);
        // A mapping records an invocation once it has ended, a little after its handler ran.
        await eventually(
          () => {
            const retries = calls.filter((call) => call.attempt === 2);
            const delivered = [...deliveredBy(0), ...deliveredBy(1)];
            return retries.length === 2 && retries.every((call) => delivered.includes(call.messageId)) ? true : undefined;
          },
          15_000,
          `both retries to run and their invocations to end: ${JSON.stringify(calls)}`,
        );
        const retryOf = (body: string) => calls.find((call) => call.body === body && call.attempt === 2)!.messageId;
        expect(deliveredBy(0)).toContain(retryOf('from-a'));
        expect(deliveredBy(1)).toContain(retryOf('from-b'));
        expect(deliveredBy(0)).not.toContain(retryOf('from-b'));
      } finally {
        await Promise.all(mappings.map((mapping) => mapping.stop()));
      }
    });
  });

  it('runs a job delivered three times once, with Powertools idempotency on DynamoDB', async () => {
    const queues = await suite.emulator.createQueues();
    const tableName = await dynamo().createIdempotencyTable();
    const ran: string[] = [];
    const handler = sqsHandler(
      async (message) => {
        ran.push((message.body as { id: string }).id);
      },
      {
        ...withQueues(queues),
        idempotency: {
          store: new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: dynamo().client }),
          key: (message) => (message.body as { id: string }).id,
        },
      },
    );
    const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, handler, { batchSize: 1 });
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, [
        { body: '{"id":"charge-1"}' },
        { body: '{"id":"charge-1"}' },
        { body: '{"id":"charge-1"}' },
        { body: '{"id":"charge-2"}' },
      ]);
      await eventually(() => drained(queues), 15_000, 'the queue to drain');
    } finally {
      await mapping.stop();
    }
    expect(ran.sort()).toEqual(['charge-1', 'charge-2']);
    expect(mapping.invocations.flatMap((invocation) => invocation.failures)).toEqual([]);
  });
});
