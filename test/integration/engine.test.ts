import { SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { PublishCommand } from '@aws-sdk/client-sns';
import { NonRetryableError, RetryableError, type RetryPolicyInput } from '@requeue/retry';
import type { MessageHandler, WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite({ concurrent: true });

interface Seen {
  at: number;
  message: WorkerMessage;
}

const runWorker = (queues: QueuePair, handler: MessageHandler, policy: RetryPolicyInput = {}, extra: { maxInFlight?: number } = {}) =>
  suite.engine(queues, handler, policy, extra);

/** A handler that records every call and behaves as `behave` says for each attempt. */
function recording(behave: (message: WorkerMessage) => Promise<void> | void = () => undefined) {
  const seen: Seen[] = [];
  const handler: MessageHandler = async (message) => {
    seen.push({ at: Date.now(), message });
    await behave(message);
  };
  return { seen, handler };
}

async function send(queueUrl: string, body: string, attributes?: Record<string, MessageAttributeValue>) {
  const out = await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: attributes }));
  return out.MessageId!;
}

async function queueIsEmpty(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

/** What the DLQ holds, once it holds anything. */
function deadLettersIn(queues: QueuePair) {
  return eventually(
    async () => {
      const messages = await suite.emulator.drain(queues.dlqUrl);
      return messages.length ? messages : undefined;
    },
    10_000,
    'the dead letter',
  );
}

const deadLetterOf = (message: { MessageAttributes?: Record<string, MessageAttributeValue> }) =>
  JSON.parse(message.MessageAttributes?.['x-dead-letter']?.StringValue ?? 'null') as Record<string, unknown> | null;

describe.concurrent('engine against the SQS protocol (fauxqs)', () => {
  it('deletes a success exactly once', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording();
    const worker = await runWorker(queues, handler);
    const settled: string[] = [];
    worker.on('settled', ({ outcome }) => settled.push(outcome.kind));
    await send(queues.queueUrl, '{"id":"a"}');
    // Empty with nothing in flight: the delete landed, so it cannot be delivered again.
    await eventually(() => queueIsEmpty(queues), 10_000, 'the queue to empty');
    expect(settled).toEqual(['deleted']);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.message).toMatchObject({ body: { id: 'a' }, rawBody: '{"id":"a"}', attempt: 1, receiveCount: 1 });
    expect(await suite.emulator.depth(queues.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('redelivers a transient failure no earlier than its computed delay, and keeps the idempotency key', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(({ attempt }) => {
      if (attempt === 1) throw new RetryableError('flaky', { errorType: 'TEMPORARY' });
    });
    await runWorker(queues, handler, { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 2000 } } } });
    const sentId = await send(queues.queueUrl, 'payload');
    await eventually(() => (seen.length >= 2 ? true : undefined), 15_000, 'the retry');
    const [first, second] = seen;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1950);
    expect(second!.message.attempt).toBe(2);
    expect(second!.message.idempotencyKey).toBe(sentId);
    expect(first!.message.idempotencyKey).toBe(sentId);
    expect(second!.message.messageId).not.toBe(sentId);
    await eventually(() => queueIsEmpty(queues), 10_000, 'the queue to empty');
  });

  it('counts attempts up and dead-letters on exhaustion with a complete x-dead-letter and the body intact', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(() => {
      throw new RetryableError('still down', { errorType: 'TEMPORARY' });
    });
    await runWorker(queues, handler, { maxAttempts: 3, types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } });
    const body = '{"id":"exhaust","unicode":"é✓"}';
    const sentId = await send(queues.queueUrl, body);
    const [dead] = await eventually(
      async () => {
        const messages = await suite.emulator.drain(queues.dlqUrl);
        return messages.length ? messages : undefined;
      },
      15_000,
      'the dead letter',
    );
    expect(seen.map((s) => s.message.attempt)).toEqual([1, 2, 3]);
    expect(dead!.Body).toBe(body);
    const record = deadLetterOf(dead!);
    expect(record).toMatchObject({
      reason: 'max-attempts',
      errorType: 'TEMPORARY',
      error: 'still down',
      attempts: 3,
      sourceQueue: queues.queueUrl,
      originalMessageId: sentId,
    });
    expect(typeof record!.firstReceivedAt).toBe('number');
    expect(record!.deadLetteredAt as number).toBeGreaterThanOrEqual(record!.firstReceivedAt as number);
    await eventually(() => queueIsEmpty(queues), 10_000, 'the queue to empty');
  });

  it('dead-letters a non-retryable failure on its first attempt', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(() => {
      throw new NonRetryableError('invalid email address');
    });
    await runWorker(queues, handler);
    await send(queues.queueUrl, 'x');
    const [dead] = await deadLettersIn(queues);
    expect(seen).toHaveLength(1);
    expect(deadLetterOf(dead!)).toMatchObject({ reason: 'non-retryable', attempts: 1, error: 'invalid email address' });
  });

  it('honours Retry-After even when the type backoff is shorter', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(({ attempt }) => {
      if (attempt === 1) throw Object.assign(new Error('slow down'), { status: 429, headers: { 'retry-after': '2' } });
    });
    await runWorker(queues, handler, { types: { RATE_LIMIT: { backoff: { type: 'fixed', delayMs: 0 } } } });
    await send(queues.queueUrl, 'x');
    await eventually(() => (seen.length >= 2 ? true : undefined), 15_000, 'the retry');
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1950);
  });

  it('hands the inner message and SNS attributes to the handler, for raw and non-raw subscriptions', async () => {
    const raw = await suite.emulator.createQueues();
    const wrapped = await suite.emulator.createQueues({ rawMessageDelivery: false });
    const fromRaw = recording();
    const fromWrapped = recording();
    await runWorker(raw, fromRaw.handler);
    await runWorker(wrapped, fromWrapped.handler);
    for (const { topicArn } of [raw, wrapped]) {
      await suite.emulator.sns.send(
        new PublishCommand({
          TopicArn: topicArn,
          Message: '{"order":42}',
          MessageAttributes: { operation: { DataType: 'String', StringValue: 'create' } },
        }),
      );
    }
    await eventually(() => (fromRaw.seen.length && fromWrapped.seen.length ? true : undefined), 10_000, 'both deliveries');
    for (const { message } of [fromRaw.seen[0]!, fromWrapped.seen[0]!]) {
      expect(message.body).toEqual({ order: 42 });
      expect(message.rawBody).toBe('{"order":42}');
      expect(message.attributes).toMatchObject({ operation: 'create' });
    }
  });

  it('releases unfinished messages at once when stopped past the drain timeout', async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 30 });
    const { seen, handler } = recording(() => new Promise(() => undefined));
    const worker = await runWorker(queues, handler);
    await send(queues.queueUrl, 'stuck');
    await eventually(() => (seen.length ? true : undefined), 10_000, 'the handler to start');
    await worker.stop({ drainTimeoutMs: 100 });
    const depth = await suite.emulator.depth(queues.queueUrl);
    expect(depth).toEqual({ visible: 1, inFlight: 0, delayed: 0 });
  });

  it('preserves order within a FIFO message group', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true });
    const order: Record<string, number[]> = { a: [], b: [] };
    const { handler } = recording(async ({ body }) => {
      const { group, n } = body as { group: string; n: number };
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      order[group]!.push(n);
    });
    await runWorker(queues, handler, {}, { maxInFlight: 20 });
    for (let n = 0; n < 10; n++) {
      for (const group of ['a', 'b']) {
        await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify({ group, n }), MessageGroupId: group }));
      }
    }
    await eventually(() => (order.a!.length === 10 && order.b!.length === 10 ? true : undefined), 15_000, 'all FIFO messages');
    expect(order.a).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(order.b).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('hops a delay longer than the ceiling without counting the hops as attempts', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(({ attempt }) => {
      if (attempt === 1) throw new RetryableError('later', { errorType: 'SLOW' });
    });
    await runWorker(queues, handler, { hopCeilingSeconds: 1, types: { SLOW: { backoff: { type: 'fixed', delayMs: 3500 }, maxDelayMs: 3500 } } });
    await send(queues.queueUrl, 'hop');
    await eventually(() => (seen.length >= 2 ? true : undefined), 15_000, 'the retry after hops');
    expect(seen.map((s) => s.message.attempt)).toEqual([1, 2]);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(2500);
  });

  it('dead-letters a forged x-retry as invalid-retry-state without running the handler', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording();
    await runWorker(queues, handler);
    await send(queues.queueUrl, 'forged', {
      'x-retry': { DataType: 'String', StringValue: '{"v":1,"attempt":1000000000,"firstReceivedAt":1,"originalMessageId":"x"}' },
    });
    const [dead] = await deadLettersIn(queues);
    expect(deadLetterOf(dead!)).toMatchObject({ reason: 'invalid-retry-state' });
    expect(seen).toHaveLength(0);
  });

  it('keeps user attributes and a valid x-retry-policy across a retry', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(({ attempt }) => {
      if (attempt < 3) throw new RetryableError('again');
    });
    await runWorker(queues, handler, { types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } });
    await send(queues.queueUrl, 'attrs', {
      tenant: { DataType: 'String', StringValue: 'acme' },
      priority: { DataType: 'Number', StringValue: '7' },
      'x-retry-policy': { DataType: 'String', StringValue: '{"maxAttempts":2}' },
    });
    const [dead] = await deadLettersIn(queues);
    expect(seen.map((s) => s.message.attributes)).toEqual([
      { tenant: 'acme', priority: '7' },
      { tenant: 'acme', priority: '7' },
    ]);
    expect(deadLetterOf(dead!)).toMatchObject({ reason: 'max-attempts', attempts: 2 });
    expect(dead!.MessageAttributes?.tenant?.StringValue).toBe('acme');
  });

  it('retries a message that already has 10 user attributes in the worker (no room for x-retry), losing none and costing no receive', async () => {
    const queues = await suite.emulator.createQueues();
    const { seen, handler } = recording(({ attempt }) => {
      if (attempt === 1) throw new RetryableError('once more');
    });
    await runWorker(queues, handler, { types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 1000 } } } });
    const attributes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`attr${i}`, { DataType: 'String', StringValue: `v${i}` }]));
    const sentId = await send(queues.queueUrl, 'ten attributes', attributes);
    await eventually(() => (seen.length >= 2 ? true : undefined), 15_000, 'the retry');
    const [first, second] = seen;
    // Waited in place, held invisible by the heartbeat: the same delivery, no second receive toward maxReceiveCount.
    expect(second!.message).toMatchObject({ attempt: 2, receiveCount: 1, messageId: sentId });
    expect(Object.keys(second!.message.attributes)).toHaveLength(10);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    await eventually(() => queueIsEmpty(queues), 10_000, 'the queue to empty');
  });
});

// Alone, after the others: the heartbeat runs on this process's event loop, which the tests
// above and the emulator would crowd, and a 2 s visibility timeout leaves it little slack.
describe('engine heartbeat against the SQS protocol (fauxqs)', () => {
  it('keeps a handler running 2.5x the visibility timeout from being redelivered (heartbeat)', async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 2 });
    const { seen, handler } = recording(() => new Promise((resolve) => setTimeout(resolve, 5000)));
    await runWorker(queues, handler);
    await send(queues.queueUrl, 'long job');
    await eventually(() => queueIsEmpty(queues), 15_000, 'the long job to finish');
    expect(seen).toHaveLength(1);
  });
});
