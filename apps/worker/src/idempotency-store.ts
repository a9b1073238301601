import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { IdempotencyOptions } from '@requeue/sqs';
import type { Logger } from 'pino';
import { keyAt, type IdempotencySetting } from './idempotency-config.js';
import { closeRedis, connectRedis } from './redis-connection.js';

/** The idempotency layer each consumer gets (each its own, as Powertools layers are configured once), and the connection behind them. */
export interface IdempotencyStores {
  forConsumer(): IdempotencyOptions | undefined;
  close(): Promise<void>;
}

/** A black-holed endpoint fails a call within seconds instead of the socket's minutes; the engine's deadline covers the rest. */
export const STORE_REQUEST_TIMEOUTS = { connectionTimeout: 1000, requestTimeout: 2000 };

const OFF: IdempotencyStores = { forConsumer: () => undefined, close: async () => undefined };

/** The configured store; one that is down makes the worker not ready until it answers. */
export function idempotencyStores(setting: IdempotencySetting, region: string, logger: Logger): IdempotencyStores {
  if (setting.store === 'off') return OFF;
  const key = (message: { body: unknown; idempotencyKey: string }) => keyAt(setting.key, message);
  const { validatePayload } = setting;
  if (setting.store === 'dynamodb') {
    // The SDK reads AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) itself; two tries, so an outage shows within a second.
    const client = new DynamoDBClient({ region, maxAttempts: 2, requestHandler: STORE_REQUEST_TIMEOUTS });
    return {
      forConsumer: () => ({ store: new DynamoDBPersistenceLayer({ tableName: setting.tableName, awsSdkV3Client: client }), key, validatePayload }),
      close: async () => client.destroy(),
    };
  }
  const client = connectRedis(setting.url, logger, 'idempotency store');
  return {
    forConsumer: () => ({ store: new CachePersistenceLayer({ client }), key, validatePayload }),
    close: () => closeRedis(client),
  };
}
