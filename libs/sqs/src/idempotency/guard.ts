import { createHash } from 'node:crypto';
import type { IdempotencyConfig as IdempotencyConfigType } from '@aws-lambda-powertools/idempotency';
import type { WorkerMessage } from '../message/worker-message.js';
import type { IdempotencyOptions, IdempotencyStore, IdempotencyStoreRecord } from './options.js';
import { every, withDeadline, type CancelTimer, type WorkerTimers } from '../time/timers.js';

/** What the store says about a message's key before its handler may run. */
export type Claim =
  | { kind: 'run'; data: { key: string }; payloadHash: string | undefined }
  | { kind: 'unguarded' }
  | { kind: 'completed' }
  | { kind: 'in-progress'; untilMs: number }
  | { kind: 'payload-mismatch'; error: string }
  | { kind: 'no-key'; error: string }
  | { kind: 'store-unavailable'; error: unknown };

/** How long receiving pauses after the store fails, before a message tries it again. */
const STORE_RETRY_MS = 5000;
/** While the store fails, how often a read of a key no message has asks whether it is back. */
const STORE_PROBE_MS = 1000;
/**
 * While no message calls the store, it is asked this often whether it answers, so that
 * readiness follows an outage of an idle worker within seconds rather than at the next
 * message.
 */
const IDLE_CHECK_MS = 5000;
/** Read by the probe: absent, so "not found" is the store answering. */
const PROBE_KEY = 'requeue:store-probe';

/** A store call that did not answer within its deadline: a hung connection or an unreachable endpoint. */
export class IdempotencyStoreTimeoutError extends Error {
  constructor(call: string, timeoutMs: number) {
    super(
      `the idempotency store did not answer ${call} within ${timeoutMs} ms; ` +
        `the message waits in the queue unrun. Check that the store is reachable and responsive`,
    );
    this.name = 'IdempotencyStoreTimeoutError';
  }
}
/** The most a duplicate of a running message waits before it looks again. */
const IN_PROGRESS_RECHECK_MS = 2000;

/**
 * Claims a key before the handler runs (an in-progress record that expires with the
 * handler timeout), completes it after a success, and clears it after a failure so the
 * retry runs. Uses the Powertools persistence layer's own conditional writes: two
 * workers claiming one key at once cannot both win.
 */
export class IdempotencyGuard {
  /** When the store last failed, while it is failing. */
  private failedAt: number | undefined;
  /** While the store fails: the timer of the probe that notices it is back. */
  private stopProbes: CancelTimer | undefined;
  /** When the store last answered a call. */
  private answeredAt = Number.NEGATIVE_INFINITY;
  /** The check of an idle store, while the worker runs. */
  private stopIdleCheck: CancelTimer | undefined;

  private constructor(
    private readonly store: IdempotencyStore,
    private readonly keyOf: (message: Omit<WorkerMessage, 'signal'>) => string | undefined,
    private readonly handlerTimeoutMs: number,
    private readonly now: () => number,
    private readonly validatePayload: boolean,
    private readonly timeoutMs: number,
    private readonly timers: WorkerTimers,
  ) {}

  /** Configures the store (once, with this consumer's queue as the key prefix); loads the optional peer only when used. */
  static async create(
    options: IdempotencyOptions,
    queueName: string,
    handlerTimeoutMs: number,
    now: () => number,
    timers: WorkerTimers,
  ): Promise<IdempotencyGuard> {
    const { IdempotencyConfig } = await import('@aws-lambda-powertools/idempotency');
    // The body's hash is kept in the completed record's data rather than through the
    // layer's payload validation: the cache layer drops that hash when it completes a record.
    const config = new IdempotencyConfig({ eventKeyJmesPath: 'key', expiresAfterSeconds: options.expiresAfterSeconds ?? 3600, throwOnNoIdempotencyKey: true });
    options.store.configure({ keyPrefix: queueName, config });
    const key = options.key ?? ((message) => message.idempotencyKey);
    const guard = new IdempotencyGuard(options.store, key, handlerTimeoutMs, now, options.validatePayload ?? false, options.storeTimeoutMs ?? 2000, timers);
    guard.config = config;
    return guard;
  }

  /** On Lambda: the store's config gets the invocation's context, as Powertools expects of a function. */
  useLambdaContext(context: { getRemainingTimeInMillis(): number }): void {
    this.config?.registerLambdaContext(context as Parameters<IdempotencyConfigType['registerLambdaContext']>[0]);
  }

  private config: IdempotencyConfigType | undefined;

  /** The store answered the last call: readiness depends on it. */
  get storeReachable(): boolean {
    return this.failedAt === undefined;
  }

  /** While the store fails, receiving pauses for a while after each failure: messages stay in the queue. */
  blockedUntil(): number | undefined {
    if (this.failedAt === undefined) return undefined;
    const until = this.failedAt + STORE_RETRY_MS;
    // Past it, receive again: the next message's claim is the store's next try.
    return until > this.now() ? until : undefined;
  }

  async claim(message: Omit<WorkerMessage, 'signal'>): Promise<Claim> {
    let key: string | undefined;
    try {
      key = this.keyOf(message);
    } catch (error) {
      return { kind: 'no-key', error: error instanceof Error ? error.message : String(error) };
    }
    if (key === undefined || key === '') return { kind: 'unguarded' };
    const data: { key: string } = { key };
    const payloadHash = this.validatePayload ? createHash('sha256').update(message.rawBody).digest('base64') : undefined;
    // The in-progress record outlives the handler's timeout by a little, never by less.
    const write = this.store.saveInProgress(data, this.handlerTimeoutMs + 1000);
    try {
      await this.withDeadline('saveInProgress', write);
      return this.reached({ kind: 'run', data, payloadHash });
    } catch (error) {
      // A write that lands after its deadline would hold the key for the handler's timeout
      // though nothing runs it: it is taken back as soon as it lands.
      if (error instanceof IdempotencyStoreTimeoutError) void write.then(() => this.store.deleteRecord(data)).catch(() => undefined);
      return this.reached(await this.existing(error, data, payloadHash));
    }
  }

  /** After a success: the record says completed, so duplicates short-circuit. */
  async complete(claim: Claim): Promise<unknown> {
    if (claim.kind !== 'run') return undefined;
    return this.call(() =>
      this.withDeadline('saveSuccess', this.store.saveSuccess(claim.data, claim.payloadHash === undefined ? null : { payloadHash: claim.payloadHash })),
    );
  }

  /** After a failure (or a stop): the record goes, so the retry runs. */
  async abandon(claim: Claim): Promise<unknown> {
    if (claim.kind !== 'run') return undefined;
    return this.call(() => this.withDeadline('deleteRecord', this.store.deleteRecord(claim.data)));
  }

  /** Why the in-progress record could not be written: a duplicate, a reused key, or the store. */
  private async existing(error: unknown, data: { key: string }, payloadHash: string | undefined): Promise<Claim> {
    const name = error instanceof Error ? error.name : '';
    // Gone between the write and the read: the other run failed and cleared it. Look again soon.
    if (name === 'IdempotencyItemNotFoundError') return { kind: 'in-progress', untilMs: this.now() + 1000 };
    if (name !== 'IdempotencyItemAlreadyExistsError') return { kind: 'store-unavailable', error };
    const existing = (error as { existingRecord?: IdempotencyStoreRecord }).existingRecord;
    try {
      const record = existing ?? (await this.withDeadline('getRecord', this.store.getRecord(data)));
      if (record.getStatus() === 'COMPLETED')
        return sameBody(record.responseData, payloadHash) ? { kind: 'completed' } : { kind: 'payload-mismatch', error: REUSED };
      const expiresAt = record.inProgressExpiryTimestamp ?? this.now() + IN_PROGRESS_RECHECK_MS;
      return { kind: 'in-progress', untilMs: Math.min(expiresAt, this.now() + IN_PROGRESS_RECHECK_MS) };
    } catch (cause) {
      return this.existing(cause, data, payloadHash);
    }
  }

  private reached(claim: Claim): Claim {
    if (claim.kind === 'store-unavailable') this.failing();
    else this.answered();
    return claim;
  }

  /** A completion or a clean-up: its failure is returned for the log, and marks the store failing. */
  private async call(write: () => Promise<void>): Promise<unknown> {
    try {
      await write();
      this.answered();
      return undefined;
    } catch (error) {
      this.failing();
      return error;
    }
  }

  /** Starts asking an idle store whether it answers (see `IDLE_CHECK_MS`): the worker has started. */
  watch(): void {
    let checking = false;
    this.stopIdleCheck ??= every(this.timers, STORE_PROBE_MS, () => {
      if (checking || this.failedAt !== undefined || this.now() - this.answeredAt < IDLE_CHECK_MS) return;
      checking = true;
      void this.probe(true).finally(() => (checking = false));
    });
  }

  /** Stops the probe and the idle check: the worker is stopping. */
  stop(): void {
    this.stopProbe();
    this.stopIdleCheck?.();
    this.stopIdleCheck = undefined;
  }

  private stopProbe(): void {
    this.stopProbes?.();
    this.stopProbes = undefined;
  }

  private answered(): void {
    this.failedAt = undefined;
    this.answeredAt = this.now();
    this.stopProbe();
  }

  /**
   * Marks the store failing, and probes it every second until it answers: with receiving
   * paused, no message would call it, and readiness would stay false after it is back.
   */
  private failing(): void {
    this.failedAt = this.now();
    this.stopProbes ??= every(this.timers, STORE_PROBE_MS, () => void this.probe());
  }

  /** Reads a key nobody writes: "not found" is an answer. `idle`: a failure marks the store failing. */
  private async probe(idle = false): Promise<void> {
    try {
      await this.withDeadline('getRecord', this.store.getRecord({ key: PROBE_KEY }));
      this.answered();
    } catch (error) {
      if ((error as Error).name === 'IdempotencyItemNotFoundError') this.answered();
      else if (idle) this.failing();
    }
  }

  /** The store call, or an IdempotencyStoreTimeoutError once it has taken `timeoutMs`. */
  private withDeadline<T>(call: string, promise: Promise<T>): Promise<T> {
    return withDeadline(promise, this.timeoutMs, () => new IdempotencyStoreTimeoutError(call, this.timeoutMs), this.timers);
  }
}

const REUSED = 'the idempotency key was used before with a different body';

/** Whether a completed record's body hash (when it kept one) is this body's. */
function sameBody(responseData: unknown, payloadHash: string | undefined): boolean {
  if (payloadHash === undefined || typeof responseData !== 'object' || responseData === null) return true;
  const stored = (responseData as { payloadHash?: unknown }).payloadHash;
  return stored === undefined || stored === payloadHash;
}
