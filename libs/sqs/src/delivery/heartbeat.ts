import type { SqsBatchClient } from '../sqs-io/batch-client.js';
import { batchFailure } from '../errors.js';
import type { WorkerLogger } from '../events/logger.js';
import { every, type CancelTimer, type WorkerTimers } from '../time/timers.js';

/** SQS refuses to keep a message invisible for more than 12 hours after it was received. */
export const MAX_VISIBILITY_SECONDS = 43_200;

interface Tracked {
  messageId: string;
  receivedAt: number;
  visibleAt: number;
  extending: Promise<void> | undefined;
  capped: boolean;
}

export interface HeartbeatOptions {
  batch: SqsBatchClient;
  queueUrl: string;
  visibilityTimeoutSeconds: number;
  logger: WorkerLogger;
  now: () => number;
  timers: WorkerTimers;
}

/**
 * Keeps long-running messages invisible. One scheduler for all messages; each tick
 * extends, in one awaited batch call, every message whose visibility runs out within
 * half a timeout. `untrack` waits for an extension under way, so the heartbeat is
 * always stopped before the message is deleted and never races the delete.
 */
export class VisibilityHeartbeat {
  private readonly tracked = new Map<string, Tracked>();
  private cancelTicks: CancelTimer | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly options: HeartbeatOptions) {
    this.timeoutMs = options.visibilityTimeoutSeconds * 1000;
  }

  start(): void {
    const interval = Math.max(250, Math.floor(this.timeoutMs / 4));
    this.cancelTicks = every(this.options.timers, interval, () => void this.tick());
  }

  stop(): void {
    this.cancelTicks?.();
    this.cancelTicks = undefined;
  }

  track(receiptHandle: string, messageId: string, receivedAt: number): void {
    this.tracked.set(receiptHandle, { messageId, receivedAt, visibleAt: receivedAt + this.timeoutMs, extending: undefined, capped: false });
  }

  /**
   * Stops extending the message. Returns the extension under way, if one is, to be awaited
   * before the message is settled; nothing otherwise, so the common case costs no promise.
   */
  untrack(receiptHandle: string): Promise<void> | undefined {
    const entry = this.tracked.get(receiptHandle);
    this.tracked.delete(receiptHandle);
    return entry?.extending;
  }

  get size(): number {
    return this.tracked.size;
  }

  /** Extends what is due. Public so tests can drive it with their own clock. */
  async tick(): Promise<void> {
    const now = this.options.now();
    const calls: Promise<void>[] = [];
    for (const [receiptHandle, entry] of this.tracked) {
      if (entry.extending || entry.capped || entry.visibleAt - now > this.timeoutMs / 2) continue;
      const elapsedSeconds = Math.floor((now - entry.receivedAt) / 1000);
      const seconds = Math.min(this.options.visibilityTimeoutSeconds, MAX_VISIBILITY_SECONDS - elapsedSeconds - 1);
      if (seconds <= 0) {
        entry.capped = true;
        this.options.logger.warn({ messageId: entry.messageId }, 'handler still running at the 12 h visibility limit; the message will become visible again');
        continue;
      }
      entry.extending = this.options.batch.changeVisibility(this.options.queueUrl, receiptHandle, seconds).then((outcome) => {
        entry.extending = undefined;
        if (outcome.ok) entry.visibleAt = now + seconds * 1000;
        else {
          const err = batchFailure('ChangeMessageVisibilityBatch', this.options.queueUrl, { messageId: entry.messageId }, outcome);
          this.options.logger.warn({ messageId: entry.messageId, err }, 'visibility heartbeat failed');
        }
      });
      calls.push(entry.extending);
    }
    await Promise.all(calls);
  }
}
