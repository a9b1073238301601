/** A retry or deferral the worker scheduled: the message waits until `dueAt`, in SQS or (FIFO, `in-place`) in the worker. */
export interface ScheduledRetry {
  /** The id of the message that failed (the copy, if any, gets a new one). */
  messageId: string;
  /** Stable across retries: the id of the first delivery. */
  originalMessageId: string;
  /** The attempt that will run when it is due (a deferral keeps the attempt). */
  attempt: number;
  /** The error type it waits for. */
  errorType: string;
  /** The failure's text, bounded like `x-retry.lastError`. */
  lastError: string;
  /** Epoch ms at which the message becomes visible again. */
  dueAt: number;
  /** `retry` uses an attempt; `deferred` waits for its dependency without using one. */
  kind: 'retry' | 'deferred';
  /** How it waits: a delayed copy, the original hidden by visibility timeout, or (FIFO) in the worker with its group held. */
  transport: 'copy' | 'visibility' | 'in-place';
  /** The trace the message's attempts share, when it has one (an SDK registered, or a context it brought). */
  traceId?: string;
}

/**
 * The worker's most recent scheduled retries, newest first. SQS cannot list delayed
 * messages, but the worker knows each one it scheduled: operators see what is waiting
 * and why. Bounded, so a retry storm costs a fixed amount of memory.
 */
export class ScheduledRetries {
  private readonly entries: ScheduledRetry[] = [];

  constructor(private readonly capacity = 200) {}

  record(entry: ScheduledRetry): void {
    this.entries.unshift(entry);
    if (this.entries.length > this.capacity) this.entries.length = this.capacity;
  }

  /** The retries not yet due at `now`, newest first. */
  pending(now: number): ScheduledRetry[] {
    return this.entries.filter((entry) => entry.dueAt > now);
  }
}
