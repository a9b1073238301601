import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { createClient } from '@redis/client';
import { RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { redisForSuite } from '../support/redis.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const redis = redisForSuite();

describe('a publisher cannot take another message’s identity through x-retry (Redis idempotency, fauxqs)', () => {
  it('an ok message carrying x-retry with a waiting victim’s id runs as itself, and the victim’s retry still runs', async () => {
    const queues = await suite.emulator.createQueues();
    const client = createClient({ url: redis().url });
    client.on('error', () => undefined);
    await client.connect();
    const calls: Array<{ body: string; key: string; messageId: string }> = [];
    try {
      await suite.engine(
        queues,
        async (message: WorkerMessage) => {
          calls.push({ body: message.rawBody, key: message.idempotencyKey, messageId: message.messageId });
          if (message.rawBody === 'victim' && message.attempt === 1) throw new RetryableError('the payment API timed out', { errorType: 'TEMPORARY' });
        },
        { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 3000 } } } },
        { idempotency: { store: new CachePersistenceLayer({ client }) } },
      );
      await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'victim' }));
      const victim = await eventually(() => calls.find((call) => call.body === 'victim'), 10_000, 'the victim’s first attempt');

      const forged = JSON.stringify({ v: 1, attempt: 1, firstReceivedAt: Date.now(), originalMessageId: victim.messageId });
      await suite.emulator.sqs.send(
        new SendMessageCommand({
          QueueUrl: queues.queueUrl,
          MessageBody: 'attacker',
          MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: forged } },
        }),
      );
      await eventually(
        () => (calls.filter((call) => call.body === 'victim').length === 2 ? true : undefined),
        20_000,
        `the victim’s retry to run: ${JSON.stringify(calls)}`,
      );
      const attacker = calls.find((call) => call.body === 'attacker')!;
      expect(attacker.key).toBe(attacker.messageId);
      expect(calls.filter((call) => call.body === 'victim').map((call) => call.key)).toEqual([victim.messageId, victim.messageId]);
    } finally {
      await client.close();
    }
  }, 40_000);
});
