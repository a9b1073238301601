import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { WorkerMessage } from '../worker-message.js';

/**
 * Effects once on at-least-once delivery: a record per key in a store, so a duplicate
 * (a redelivery after a crash, a replay, a second publish of the same job) ends as a
 * success without calling the handler. See docs/worker.md for the guarantee and its limits.
 */
export interface IdempotencyOptions {
  /**
   * A Powertools persistence layer from `@aws-lambda-powertools/idempotency`:
   * `new CachePersistenceLayer({ client })` for Redis or Valkey, or
   * `new DynamoDBPersistenceLayer({ tableName })`. Give each consumer its own instance.
   */
  store: BasePersistenceLayer;
  /**
   * The key a duplicate shares, from the message (its body as validated by `schema`).
   * Return undefined to run a message unguarded; throw to dead-letter it `non-retryable`
   * (`IDEMPOTENCY_KEY_MISSING`) with your error's message. @default the message's
   * `idempotencyKey` (stable across retries, copies, deferrals and replays)
   */
  key?: (message: Omit<WorkerMessage, 'signal'>) => string | undefined;
  /** A key seen again with a different body is dead-lettered `non-retryable`, not run. @default false */
  validatePayload?: boolean;
  /** How long a completed key short-circuits its duplicates. @default 3600 */
  expiresAfterSeconds?: number;
}
