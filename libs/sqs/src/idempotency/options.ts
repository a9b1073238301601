import type { WorkerMessage } from '../message/worker-message.js';

/** A record as the store returns it. */
export interface IdempotencyStoreRecord {
  /** `INPROGRESS`, `COMPLETED` or `EXPIRED`. */
  getStatus(): string;
  /** Epoch ms until which an in-progress record holds its key. */
  inProgressExpiryTimestamp?: number;
  /** What the record keeps: the payload's hash, when `validatePayload` is on. */
  responseData?: unknown;
}

/**
 * The persistence-layer calls requeue makes: what the Powertools persistence layers
 * (`CachePersistenceLayer`, `DynamoDBPersistenceLayer` from
 * `@aws-lambda-powertools/idempotency`) provide. Declared here so that these types do not
 * need that optional peer installed.
 */
export interface IdempotencyStore {
  /** Called once at start: the key path, the records' lifetime, and the consumer's queue as the key prefix. */
  configure(options: { config: object; keyPrefix?: string }): void;
  /** Writes an in-progress record unless one holds the key; throws `IdempotencyItemAlreadyExistsError` (with the record) if one does. */
  saveInProgress(data: { key: string }, remainingTimeInMillis?: number): Promise<void>;
  /** Marks the record completed, keeping `result` with it. */
  saveSuccess(data: { key: string }, result: { payloadHash: string } | null): Promise<void>;
  /** Removes the record, so the key may run again. */
  deleteRecord(data: { key: string }): Promise<void>;
  /** Reads the record; throws `IdempotencyItemNotFoundError` when there is none. */
  getRecord(data: { key: string }): Promise<IdempotencyStoreRecord>;
}

/**
 * Effects once on at-least-once delivery: a record per key in a store, so a duplicate
 * (a redelivery after a crash, a replay, a second publish of the same job) ends as a
 * success without calling the handler. See docs/worker.md for the guarantee and its limits.
 */
export interface IdempotencyOptions<Body = unknown> {
  /**
   * A Powertools persistence layer from `@aws-lambda-powertools/idempotency`:
   * `new CachePersistenceLayer({ client })` for Redis or Valkey, or
   * `new DynamoDBPersistenceLayer({ tableName })`. Give each consumer its own instance.
   */
  store: IdempotencyStore;
  /**
   * The key a duplicate shares, from the message (its body as validated by `schema`, and
   * typed by it: `IdempotencyOptions<InferBody<typeof schema>>`).
   * Return undefined to run a message unguarded; throw to dead-letter it `non-retryable`
   * (`IDEMPOTENCY_KEY_MISSING`) with your error's message. @default the message's
   * `idempotencyKey` (stable across retries, copies, deferrals and replays)
   */
  key?: (message: Omit<WorkerMessage<Body>, 'signal'>) => string | undefined;
  /** A key seen again with a different body is dead-lettered `non-retryable`, not run. @default false */
  validatePayload?: boolean;
  /** How long a completed key short-circuits its duplicates. @default 3600 */
  expiresAfterSeconds?: number;
  /**
   * Each store call's deadline. One that takes longer counts as the store being down: the
   * message waits in the queue unrun, its attempt unused, and the worker is not ready
   * until the store answers again. @default 2000
   */
  storeTimeoutMs?: number;
}
