import type { Random } from '@requeue/retry/engine';
import type { IdempotencyStore, IdempotencyStoreRecord } from '@requeue/sqs';

interface StoredRecord {
  status: 'INPROGRESS' | 'COMPLETED';
  /** Epoch ms after which the record no longer holds its key. */
  expiresAt: number;
  responseData: unknown;
}

/** The chance that a store call fails (a refused connection), or never answers. */
export interface StoreFaultRates {
  fail: number;
  hang: number;
}

function record(stored: StoredRecord): IdempotencyStoreRecord {
  return {
    getStatus: () => stored.status,
    inProgressExpiryTimestamp: stored.status === 'INPROGRESS' ? stored.expiresAt : undefined,
    responseData: stored.responseData,
  };
}

function named(name: string, message: string, extra: object = {}): Error {
  return Object.assign(new Error(message), { name }, extra);
}

const COMPLETED_FOR_MS = 3_600_000;

/**
 * A Powertools persistence layer in memory, on the simulation's clock: an in-progress
 * record holds its key until its expiry, a completed one for an hour. Each call may fail
 * (a refused connection) or hang (the worker's store deadline ends it), by the seed; a
 * completion that failed is remembered, because its key may then run again once the
 * in-progress record expires: the documented limit of effects-once.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, StoredRecord>();
  /** Keys whose completion the store did not take: their duplicates may run again. */
  readonly completionsLost = new Set<string>();

  constructor(
    private readonly now: () => number,
    private readonly faults: StoreFaultRates,
    private readonly random: Random,
  ) {}

  configure(): void {}

  saveInProgress(data: { key: string }, remainingTimeInMillis = 60_000): Promise<void> {
    return this.call(() => {
      const held = this.live(data.key);
      if (held) throw named('IdempotencyItemAlreadyExistsError', `${data.key} is held`, { existingRecord: record(held) });
      this.records.set(data.key, { status: 'INPROGRESS', expiresAt: this.now() + remainingTimeInMillis, responseData: undefined });
    });
  }

  saveSuccess(data: { key: string }, result: { payloadHash: string } | null): Promise<void> {
    const complete = () => void this.records.set(data.key, { status: 'COMPLETED', expiresAt: this.now() + COMPLETED_FOR_MS, responseData: result });
    return this.call(complete, () => this.completionsLost.add(data.key));
  }

  deleteRecord(data: { key: string }): Promise<void> {
    return this.call(() => void this.records.delete(data.key));
  }

  getRecord(data: { key: string }): Promise<IdempotencyStoreRecord> {
    return this.call(() => {
      const held = this.live(data.key);
      if (!held) throw named('IdempotencyItemNotFoundError', `no record for ${data.key}`);
      return record(held);
    });
  }

  private live(key: string): StoredRecord | undefined {
    const stored = this.records.get(key);
    return stored && stored.expiresAt > this.now() ? stored : undefined;
  }

  /** The store's answer, or its fault (`faulted` is told): a refusal before it acts, or no answer at all. */
  private call<T>(act: () => T, faulted?: () => void): Promise<T> {
    const draw = this.random();
    if (draw < this.faults.fail + this.faults.hang) faulted?.();
    if (draw < this.faults.fail) return Promise.reject(named('Error', 'connect ECONNREFUSED 127.0.0.1:6379', { code: 'ECONNREFUSED' }));
    if (draw < this.faults.fail + this.faults.hang) return new Promise<T>(() => undefined);
    try {
      return Promise.resolve(act());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
}
