import type * as DynamoDb from '@aws-sdk/client-dynamodb';
import type { FleetStateStore } from '../backpressure/fleet-state.js';
import type { IdempotencyOptions } from '../idempotency/options.js';
import type { WorkerLogger } from '../events/logger.js';
import { requiredPeer } from '../peers/optional-peer.js';
import { DynamoDbFleetStore, RedisFleetStore } from './fleet-stores.js';
import { keyAt, type IdempotencySetting } from './idempotency-setting.js';
import { closeRedis, connectRedis } from './redis-connection.js';
import type { StoreLocation } from './store-location.js';

/** A store built from the environment, and how to release its connection. */
export interface Built<T> {
  value: T;
  close(): Promise<void>;
}

/** A black-holed endpoint fails a call within seconds instead of the socket's minutes; the engine's deadline covers the rest. */
const STORE_REQUEST_TIMEOUTS = { connectionTimeout: 1000, requestTimeout: 2000 };

type PersistenceLayers = {
  DynamoDBPersistenceLayer: new (options: { tableName: string; awsSdkV3Client: DynamoDb.DynamoDBClient }) => IdempotencyOptions['store'];
  CachePersistenceLayer: new (options: { client: unknown }) => IdempotencyOptions['store'];
};

/** Two tries, so an outage shows within a second; the SDK reads AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) itself. */
function dynamoDb(feature: string, alongside: readonly string[] = []): { client: DynamoDb.DynamoDBClient; sdk: typeof DynamoDb } {
  const sdk = requiredPeer<typeof DynamoDb>('@aws-sdk/client-dynamodb', feature, alongside);
  return { client: new sdk.DynamoDBClient({ maxAttempts: 2, requestHandler: STORE_REQUEST_TIMEOUTS }), sdk };
}

/** The idempotency guard WORKER_IDEMPOTENCY names, on its own connection (a Powertools layer is configured once, for one consumer). */
export function idempotencyStore(setting: Exclude<IdempotencySetting, { store: 'off' }>, logger: WorkerLogger): Built<IdempotencyOptions> {
  const feature = `WORKER_IDEMPOTENCY=${setting.store === 'dynamodb' ? 'dynamodb:…' : 'redis://…'}`;
  const guard = { key: (message: { body: unknown; idempotencyKey: string }) => keyAt(setting.key, message), validatePayload: setting.validatePayload };
  if (setting.store === 'dynamodb') {
    const layers = requiredPeer<PersistenceLayers>('@aws-lambda-powertools/idempotency/dynamodb', feature, ['@aws-sdk/client-dynamodb']);
    const { client } = dynamoDb(feature, ['@aws-lambda-powertools/idempotency']);
    return {
      value: { ...guard, store: new layers.DynamoDBPersistenceLayer({ tableName: setting.tableName, awsSdkV3Client: client }) },
      close: async () => client.destroy(),
    };
  }
  const layers = requiredPeer<PersistenceLayers>('@aws-lambda-powertools/idempotency/cache', feature, ['@redis/client']);
  const client = connectRedis(setting.url, logger, 'idempotency store', feature);
  return { value: { ...guard, store: new layers.CachePersistenceLayer({ client }) }, close: () => closeRedis(client) };
}

/** The store WORKER_FLEET_STATE names, where the fleet's workers share backpressure. */
export function fleetStateStore(location: StoreLocation, logger: WorkerLogger): Built<FleetStateStore> {
  const feature = `WORKER_FLEET_STATE=${location.store === 'dynamodb' ? 'dynamodb:…' : 'redis://…'}`;
  if (location.store === 'dynamodb') {
    const { client, sdk } = dynamoDb(feature);
    return { value: new DynamoDbFleetStore(client, location.tableName, sdk.UpdateItemCommand), close: async () => client.destroy() };
  }
  const client = connectRedis(location.url, logger, 'fleet store', feature);
  return { value: new RedisFleetStore(client), close: () => closeRedis(client) };
}
