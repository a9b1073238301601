import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createClient } from '@redis/client';
import type { IdempotencyOptions } from '@requeue/sqs';
import type { Logger } from 'pino';
import { keyAt, type IdempotencySetting } from './idempotency-config.js';

/** The idempotency layer each consumer gets (each its own, as Powertools layers are configured once), and the connection behind them. */
export interface IdempotencyStores {
  forConsumer(): IdempotencyOptions | undefined;
  close(): Promise<void>;
}

const OFF: IdempotencyStores = { forConsumer: () => undefined, close: async () => undefined };

/**
 * Connects to the configured store without waiting for it: a store that is down at start
 * makes the worker not ready (its calls fail at once, nothing is queued behind a dead
 * connection), and it is used as soon as it answers.
 */
export function idempotencyStores(setting: IdempotencySetting, region: string, logger: Logger): IdempotencyStores {
  if (setting.store === 'off') return OFF;
  const key = (message: { body: unknown; idempotencyKey: string }) => keyAt(setting.key, message);
  const { validatePayload } = setting;
  if (setting.store === 'dynamodb') {
    // The SDK reads AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) itself; two tries, so an outage shows within a second.
    const client = new DynamoDBClient({ region, maxAttempts: 2 });
    return {
      forConsumer: () => ({ store: new DynamoDBPersistenceLayer({ tableName: setting.tableName, awsSdkV3Client: client }), key, validatePayload }),
      close: async () => client.destroy(),
    };
  }
  const client = createClient({ url: setting.url, disableOfflineQueue: true, socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) } });
  let reported = false;
  client.on('error', (error: unknown) => {
    if (!reported) logger.warn({ err: error }, 'idempotency store (Redis) unreachable; retrying');
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info('idempotency store (Redis) reachable again');
    reported = false;
  });
  client.connect().catch(() => undefined);
  return {
    forConsumer: () => ({ store: new CachePersistenceLayer({ client }), key, validatePayload }),
    close: async () => {
      await client.close().catch(() => client.destroy());
    },
  };
}
