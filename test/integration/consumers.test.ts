import { DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { SqsHealthIndicator } from '@requeue/nest';
import { parseDeadLetterRecord } from '@requeue/retry/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { handled, twoConsumerModule } from '../support/consumer-fixtures.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const apps: INestApplicationContext[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  handled.splice(0);
});

async function boot(orders: QueuePair, emails: QueuePair, extra: Parameters<typeof twoConsumerModule>[3] = {}) {
  const app = await NestFactory.createApplicationContext(twoConsumerModule(suite.emulator.sqs, orders, emails, extra), { logger: false });
  apps.push(app);
  return app;
}

async function send(queueUrl: string, body: unknown) {
  await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
}

const drained = async (queues: QueuePair) => {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0;
};

type Report = Record<string, { status: string; consumers: Record<string, { ready: boolean; live: boolean; error?: string }> }>;
const report = (app: INestApplicationContext, aspect: 'isReady' | 'isLive') => app.get(SqsHealthIndicator)[aspect]() as unknown as Report;

describe('several consumers in one process (SqsWorkerModule with consumers)', () => {
  it('runs each queue with its own handler: a typed order retried once, a schema dead letter, an email; both queues drain and health names both', async () => {
    const [orders, emails] = [await suite.emulator.createQueues(), await suite.emulator.createQueues()];
    const app = await boot(orders, emails);
    await send(orders.queueUrl, { orderId: 'o-1', amountCents: 100 });
    await send(orders.queueUrl, { orderId: 'flaky-2', amountCents: 200 });
    await send(orders.queueUrl, { orderId: 'o-3', amountCents: 'lots' });
    await send(emails.queueUrl, { to: 'ada@example.com' });
    await eventually(
      async () => ((await drained(orders)) && (await drained(emails)) && handled.length === 3 ? true : undefined),
      15_000,
      'both queues drained',
    );
    expect(handled.sort()).toEqual(['emails:ada@example.com', 'orders:flaky-2#2', 'orders:o-1#1']);
    const dead = await suite.emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: orders.dlqUrl, MessageAttributeNames: ['All'] }));
    expect(dead.Messages).toHaveLength(1);
    expect(parseDeadLetterRecord(dead.Messages![0]!.MessageAttributes!['x-dead-letter']!.StringValue)).toMatchObject({
      reason: 'non-retryable',
      errorType: 'VALIDATION',
      attempts: 1,
    });
    expect(await suite.emulator.depth(emails.dlqUrl)).toMatchObject({ visible: 0 });
    const ready = report(app, 'isReady')['sqs-worker']!;
    expect(ready.status).toBe('up');
    expect(Object.keys(ready.consumers).sort()).toEqual(['mail', 'orders']);
  });

  it('keeps the other consumer working when one queue is deleted under it, and says which is not ready', async () => {
    const [orders, emails] = [await suite.emulator.createQueues(), await suite.emulator.createQueues()];
    const app = await boot(orders, emails);
    await eventually(() => (report(app, 'isReady')['sqs-worker']!.status === 'up' ? true : undefined), 10_000, 'both ready');
    await suite.emulator.sqs.send(new DeleteQueueCommand({ QueueUrl: emails.queueUrl }));
    await eventually(() => (report(app, 'isReady')['sqs-worker']!.consumers.mail!.ready === false ? true : undefined), 15_000, 'mail not ready');
    for (let i = 0; i < 5; i++) await send(orders.queueUrl, { orderId: `after-${i}`, amountCents: 1 });
    await eventually(async () => ((await drained(orders)) && handled.length === 5 ? true : undefined), 15_000, 'orders drained after the delete');
    const ready = report(app, 'isReady')['sqs-worker']!;
    expect(ready.status).toBe('down');
    expect(ready.consumers.orders!.ready).toBe(true);
    // Alive all along: restarting the task would not bring the queue back.
    expect(report(app, 'isLive')['sqs-worker']!.status).toBe('up');
  });

  it('boots with a queue that does not exist yet, runs the other, and starts the missing one once it appears', async () => {
    const orders = await suite.emulator.createQueues();
    const emails = await suite.emulator.createQueues();
    await suite.emulator.sqs.send(new DeleteQueueCommand({ QueueUrl: emails.queueUrl }));
    const app = await boot(orders, emails, { startRetryMs: 200 });
    const starting = report(app, 'isReady')['sqs-worker']!.consumers.mail!;
    expect(starting.ready).toBe(false);
    expect(starting.error).toMatch(/./);
    await send(orders.queueUrl, { orderId: 'o-1', amountCents: 1 });
    await eventually(() => (handled.includes('orders:o-1#1') ? true : undefined), 10_000, 'orders running meanwhile');
    const recreated = await suite.emulator.recreateQueue(emails.queueUrl);
    await send(recreated, { to: 'late@example.com' });
    await eventually(() => (handled.includes('emails:late@example.com') ? true : undefined), 15_000, 'mail started once its queue exists');
    expect(report(app, 'isReady')['sqs-worker']!.status).toBe('up');
  });

  it('drains every consumer at once on shutdown: two slow handlers finish within one drain, not one after the other', async () => {
    const [orders, emails] = [await suite.emulator.createQueues(), await suite.emulator.createQueues()];
    const app = await boot(orders, emails, { drainTimeoutMs: 10_000 });
    await send(orders.queueUrl, { orderId: 'slow', amountCents: 1, slowMs: 2000 });
    await send(emails.queueUrl, { to: 'slow@example.com', slowMs: 2000 });
    await eventually(
      async () =>
        (await suite.emulator.depth(orders.queueUrl)).inFlight === 1 && (await suite.emulator.depth(emails.queueUrl)).inFlight === 1 ? true : undefined,
      10_000,
      'both in flight',
    );
    const closing = Date.now();
    await app.close();
    apps.splice(0);
    const took = Date.now() - closing;
    expect(handled.sort()).toEqual(['emails:slow@example.com', 'orders:slow#1']);
    // One after the other would take at least 4 s; at once, about 2 s.
    expect(took).toBeLessThan(3500);
    expect(await drained(orders)).toBe(true);
    expect(await drained(emails)).toBe(true);
  });
});
