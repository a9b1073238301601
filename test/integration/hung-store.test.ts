import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { createClient } from '@redis/client';
import type { WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { redisForSuite } from '../support/redis.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const redisServer = redisForSuite();

/** Fresh queues, and a client of the suite's Redis that fails at once rather than queue commands while Redis hangs. */
async function queuesAndStore() {
  const queues = await suite.emulator.createQueues();
  const redis = redisServer();
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on('error', () => undefined);
  await client.connect();
  return { queues, redis, client };
}

describe('an idempotency store that hangs (Redis stopped with SIGSTOP, fauxqs)', () => {
  it('makes the worker not ready within seconds, runs nothing and uses no attempt, stops within the drain, and is ready again as soon as the store answers', async () => {
    const { queues, redis, client } = await queuesAndStore();
    const handled: Array<{ body: string; attempt: number }> = [];
    const handler = async (message: WorkerMessage) => void handled.push({ body: message.rawBody, attempt: message.attempt });
    const idempotency = { store: new CachePersistenceLayer({ client }), storeTimeoutMs: 1000 };
    const worker = await suite.engine(queues, handler, {}, { idempotency, waitTimeSeconds: 1, drainTimeoutMs: 3000 });
    try {
      await eventually(() => (worker.health().ready ? true : undefined), 10_000, 'ready with the store up');
      process.kill(redis.process.pid!, 'SIGSTOP');
      const stoppedAt = performance.now();
      await suite.emulator.sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queues.queueUrl, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: `job-${i}` })) }),
      );
      await eventually(() => (worker.health().ready ? undefined : true), 15_000, 'not ready with the store hung');
      const notReadyAfterMs = performance.now() - stoppedAt;
      process.stdout.write(`hung store: not ready ${(notReadyAfterMs / 1000).toFixed(1)} s after SIGSTOP\n`);
      expect(notReadyAfterMs).toBeLessThan(10_000);
      expect(handled).toEqual([]);

      process.kill(redis.process.pid!, 'SIGCONT');
      const resumedAt = performance.now();
      await eventually(() => (worker.health().ready ? true : undefined), 10_000, 'ready again once the store answers');
      process.stdout.write(`hung store: ready ${((performance.now() - resumedAt) / 1000).toFixed(1)} s after SIGCONT\n`);
      await eventually(() => (handled.length === 10 ? true : undefined), 30_000, `every message run: ${JSON.stringify(handled)}`);
      // Held back while the store hung: no attempt was used.
      expect(handled.map((h) => h.attempt)).toEqual(Array(10).fill(1));
      expect(await suite.emulator.drain(queues.dlqUrl)).toEqual([]);

      // A stop while the store hangs again still ends within the drain.
      process.kill(redis.process.pid!, 'SIGSTOP');
      await suite.emulator.sqs.send(new SendMessageBatchCommand({ QueueUrl: queues.queueUrl, Entries: [{ Id: '0', MessageBody: 'late' }] }));
      await eventually(() => (worker.health().ready ? undefined : true), 15_000, 'not ready again');
      const stopping = performance.now();
      await worker.stop({ drainTimeoutMs: 3000 });
      expect(performance.now() - stopping).toBeLessThan(5000);
    } finally {
      process.kill(redis.process.pid!, 'SIGCONT');
      await client.close().catch(() => client.destroy());
    }
  }, 90_000);

  it('makes an idle worker not ready within seconds of its store hanging, with no message to call it', async () => {
    const { queues, redis, client } = await queuesAndStore();
    const idempotency = { store: new CachePersistenceLayer({ client }), storeTimeoutMs: 1000 };
    const worker = await suite.engine(queues, async () => undefined, {}, { idempotency, waitTimeSeconds: 1 });
    try {
      await eventually(() => (worker.health().ready ? true : undefined), 10_000, 'ready with the store up');
      process.kill(redis.process.pid!, 'SIGSTOP');
      const stoppedAt = performance.now();
      await eventually(() => (worker.health().ready ? undefined : true), 15_000, 'not ready with the store hung, while idle');
      const notReadyAfterMs = performance.now() - stoppedAt;
      process.stdout.write(`hung store, idle worker: not ready ${(notReadyAfterMs / 1000).toFixed(1)} s after SIGSTOP\n`);
      // Checked once the store has been idle for 5 s, each check bounded by the store's 1 s deadline.
      expect(notReadyAfterMs).toBeLessThan(8_000);
      process.kill(redis.process.pid!, 'SIGCONT');
      await eventually(() => (worker.health().ready ? true : undefined), 10_000, 'ready again once the store answers');
    } finally {
      process.kill(redis.process.pid!, 'SIGCONT');
      await client.close().catch(() => client.destroy());
    }
  }, 60_000);
});
