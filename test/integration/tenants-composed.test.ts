import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { RetryableError } from '@requeue/retry';
import type { MessageHandler } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { dynamoDbForSuite } from '../support/dynamodb.js';
import { eventually } from '../support/emulator.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const dynamo = dynamoDbForSuite();

interface Job {
  tenant: string;
  id: string;
}

describe('tenants with backpressure and idempotency (on the emulator)', () => {
  it('a rate-limited tenant waits without starving the other or using attempts, and a duplicate runs once', async () => {
    const queues = await suite.emulator.createQueues();
    const runs: Array<{ id: string; attempt: number; at: number }> = [];
    let pausedAt: number | undefined;
    // Tenant a's API answers its first call 429 (retry in 1.5 s): a's dependency pauses.
    const handler: MessageHandler = async (message) => {
      const { id } = message.body as Job;
      runs.push({ id, attempt: message.attempt, at: Date.now() });
      if (id === 'a0' && pausedAt === undefined) {
        pausedAt = Date.now();
        throw new RetryableError('a answered 429', { errorType: 'RATE_LIMIT', retryAfterMs: 1_500 });
      }
    };
    await suite.engine(
      queues,
      handler,
      {},
      {
        maxInFlight: 2,
        prefetch: 20,
        tenants: { key: 'body.tenant' },
        // Each tenant calls its own API: the dependency is the tenant.
        dependencyKey: (message) => (message.body as Job).tenant,
        backpressure: { rateLimitEvidence: 1 },
        idempotency: {
          store: new DynamoDBPersistenceLayer({ tableName: await dynamo().createIdempotencyTable(), awsSdkV3Client: dynamo().client }),
          key: (message) => (message.body as Job).id,
        },
      },
    );
    const jobs = (tenant: string, count: number) => Array.from({ length: count }, (_, i) => ({ body: JSON.stringify({ tenant, id: `${tenant}${i}` }) }));
    // b1 is delivered twice: the idempotency key (its id) runs it once.
    await sendAll(suite.emulator.sqs, queues.queueUrl, [...jobs('a', 10), ...jobs('b', 4), { body: '{"tenant":"b","id":"b1"}' }]);
    await eventually(
      async () => {
        const depth = await suite.emulator.depth(queues.queueUrl);
        return depth.visible + depth.inFlight + depth.delayed === 0 && runs.filter((r) => r.id.startsWith('a')).length >= 11 ? true : undefined;
      },
      30_000,
      'every job to run',
    );

    console.info(`runs, ms from the 429: ${runs.map((r) => `${r.id}@${r.attempt} +${r.at - pausedAt!}`).join(', ')}`);
    const ranOf = (id: string) => runs.filter((r) => r.id === id);
    // Every job ran once, a0 twice (its 429, then after the pause); the duplicate b1 once.
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'b0', 'b1', 'b2', 'b3']) expect(ranOf(id), id).toHaveLength(1);
    expect(ranOf('a0')).toHaveLength(2);
    // The pause used no attempt: a's jobs all ran at attempt 1, a0 too, since its 429 was
    // the dependency's (confirmed by the pause it caused), not the message's.
    expect(runs.filter((r) => r.id.startsWith('a')).every((r) => r.attempt === 1)).toBe(true);
    // While a was paused, b's jobs ran: all of them before a's pause ended.
    const pauseEnds = pausedAt! + 1_500;
    expect(runs.filter((r) => r.id.startsWith('b')).every((r) => r.at < pauseEnds)).toBe(true);
    // a1 started beside a0, before the 429 came back; a's others waited out the pause in SQS.
    expect(runs.filter((r) => r.id.startsWith('a') && !['a0', 'a1'].includes(r.id)).every((r) => r.at >= pauseEnds - 50)).toBe(true);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 0 });
  }, 60_000);
});
