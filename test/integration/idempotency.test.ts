import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { createClient } from '@redis/client';
import { RetryableError } from '@requeue/retry';
import type { MessageHandler, SqsWorkerOptions } from '@requeue/sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { NestFactory } from '@nestjs/core';
import { chargeIdempotency, chargeModule, charges } from '../support/idempotent-nest-fixture.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { emulatorSuite } from '../support/suite.js';

// The tests wait on retries and a store outage, each on its own queues and keys: they run at once.
const suite = emulatorSuite({ concurrent: true });
let redis: RedisServer;
const clients: Array<{ close(): Promise<unknown> }> = [];

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await redis?.stop();
});

async function redisStore() {
  const client = createClient({ url: redis.url });
  client.on('error', () => undefined);
  await client.connect();
  clients.push(client);
  return new CachePersistenceLayer({ client });
}

/** The engine on these queues with a Redis-backed idempotency layer keyed by the body's `orderId`. */
async function idempotentEngine(queues: QueuePair, handler: MessageHandler, extra: Partial<SqsWorkerOptions['idempotency']> = {}) {
  const idempotency = { store: await redisStore(), key: (message: { body: unknown }) => (message.body as { orderId?: string }).orderId, ...extra };
  return suite.engine(queues, handler, { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }, { idempotency });
}

async function publish(queueUrl: string, bodies: object[]) {
  await suite.emulator.sqs.send(
    new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: JSON.stringify(body) })) }),
  );
}

async function drained(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

describe.concurrent('idempotent handlers with a real Redis store (redis-server, fauxqs)', () => {
  it('runs a job published 5 times once; the other 4 end as successes without a call', async () => {
    const queues = await suite.emulator.createQueues();
    const calls: string[] = [];
    await idempotentEngine(queues, async ({ body }) => {
      calls.push((body as { orderId: string }).orderId);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await publish(
      queues.queueUrl,
      Array.from({ length: 5 }, () => ({ orderId: 'order-1', amountCents: 500 })),
    );
    await eventually(() => drained(queues), 20_000, 'the queue to drain');
    expect(calls).toEqual(['order-1']);
    expect(await suite.emulator.depth(queues.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('makes a concurrent duplicate wait without using an attempt, then short-circuits it', async () => {
    const queues = await suite.emulator.createQueues();
    let release: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const engine = await idempotentEngine(queues, async () => {
      calls++;
      await running;
    });
    await publish(queues.queueUrl, [{ orderId: 'order-2' }, { orderId: 'order-2' }]);
    const deferral = await eventually(() => engine.scheduledRetries().find((entry) => entry.kind === 'deferred'), 15_000, 'the duplicate deferred');
    expect(deferral.attempt).toBe(1);
    expect(calls).toBe(1);
    release();
    await eventually(() => drained(queues), 20_000, 'the queue to drain');
    expect(calls).toBe(1);
  });

  it('clears the record of a failed run, so its retry runs', async () => {
    const queues = await suite.emulator.createQueues();
    const attempts: number[] = [];
    await idempotentEngine(queues, ({ attempt }) => {
      attempts.push(attempt);
      return attempt === 1 ? Promise.reject(new RetryableError('503', { errorType: 'TEMPORARY' })) : Promise.resolve();
    });
    await publish(queues.queueUrl, [{ orderId: 'order-3' }]);
    await eventually(() => drained(queues), 20_000, 'the queue to drain');
    expect(attempts).toEqual([1, 2]);
  });

  it('dead-letters a reused key with a different body when payload validation is on, and lets an equal one through', async () => {
    const queues = await suite.emulator.createQueues();
    const calls: unknown[] = [];
    await idempotentEngine(queues, async ({ body }) => void calls.push(body), { validatePayload: true });
    await publish(queues.queueUrl, [{ orderId: 'order-4', amountCents: 100 }]);
    await eventually(() => drained(queues), 20_000, 'the first to complete');
    await publish(queues.queueUrl, [
      { orderId: 'order-4', amountCents: 100 },
      { orderId: 'order-4', amountCents: 999 },
    ]);
    const [letter] = await eventually(async () => {
      const letters = await suite.emulator.drain(queues.dlqUrl);
      return letters.length > 0 ? letters : undefined;
    });
    expect(JSON.parse(letter!.Body!)).toEqual({ orderId: 'order-4', amountCents: 999 });
    expect(JSON.parse(letter!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({
      reason: 'non-retryable',
      errorType: 'IDEMPOTENCY_KEY_REUSED',
    });
    await eventually(() => drained(queues), 20_000, 'the equal duplicate to be acknowledged');
    expect(calls).toEqual([{ orderId: 'order-4', amountCents: 100 }]);
  });

  it('with the store down: not ready, nothing runs unguarded, nothing is lost; it resumes when the store is back', async () => {
    const queues = await suite.emulator.createQueues();
    const local = await startRedis();
    const client = createClient({ url: local.url, socket: { reconnectStrategy: () => 200 } });
    client.on('error', () => undefined);
    await client.connect();
    clients.push(client);
    const calls: string[] = [];
    const engine = await suite.engine(
      queues,
      async ({ body }) => void calls.push((body as { orderId: string }).orderId),
      {},
      {
        idempotency: { store: new CachePersistenceLayer({ client }), key: (message) => (message.body as { orderId?: string }).orderId },
      },
    );
    const port = new URL(local.url).port;
    await local.stop();
    await publish(queues.queueUrl, [{ orderId: 'order-5' }]);
    await eventually(() => (engine.health().ready ? undefined : true), 15_000, 'the worker to report not ready');
    expect(calls).toEqual([]);
    const depth = await suite.emulator.depth(queues.queueUrl);
    expect(depth.visible + depth.inFlight).toBe(1);
    const restarted = await startRedis(Number(port));
    try {
      await eventually(() => (calls.length === 1 ? true : undefined), 30_000, 'the message to run once the store is back');
      await eventually(() => drained(queues), 20_000, 'the queue to drain');
      expect(engine.health().ready).toBe(true);
    } finally {
      await restarted.stop();
    }
  });

  it("guards a Nest handler through @SqsHandler('charge', { idempotency })", async () => {
    const queues = await suite.emulator.createQueues();
    chargeIdempotency.store = await redisStore();
    const app = await NestFactory.createApplicationContext(chargeModule(suite.emulator.sqs, queues), { logger: false });
    try {
      await publish(
        queues.queueUrl,
        Array.from({ length: 5 }, () => ({ chargeId: 'ch-1', amountCents: 900 })),
      );
      await eventually(() => drained(queues), 20_000, 'the queue to drain');
      expect(charges).toEqual(['ch-1']);
    } finally {
      await app.close();
    }
  });
});
