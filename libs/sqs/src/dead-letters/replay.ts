import { DeadLetterOperationError } from './errors.js';
import { releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqFilter } from './scan.js';
import { destinationOf, sendBackBatch, type SendBackOptions } from './send-back.js';
import { sourceQueuePolicy } from './source-queues.js';

/** How `replayDeadLetters` sends dead letters back. */
export interface ReplayOptions extends SendBackOptions {
  /** Where to send; by default each message's source queue from `x-dead-letter`. */
  to?: string;
  /**
   * At most this many messages a second, so a replay does not become a burst against the
   * dependency.
   */
  ratePerSecond?: number;
  /** At most this many messages. */
  max?: number;
  /** Report what would be replayed; send and delete nothing. */
  dryRun: boolean;
}

/** What a replay did, message by message. */
export interface ReplayResult {
  /** Sent back, and deleted from the DLQ. */
  replayed: Array<{ messageId: string; to: string }>;
  /** Left in the DLQ, and why. */
  skipped: Array<{ messageId: string; why: string }>;
  /** Whether this was a dry run. */
  dryRun: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends matching DLQ messages back, body byte for byte, and deletes each from the DLQ only
 * after its send succeeded: a failure leaves it in the DLQ, never nowhere.
 */
export async function replayDeadLetters(target: DeadLetterQueue, filter: DlqFilter, options: ReplayOptions): Promise<ReplayResult> {
  const sources = options.to === undefined ? await sourceQueuePolicy(target) : undefined;
  const { matched, skipped } = await scanDlq(target, filter, { limit: options.max, hideSeconds: 120 });
  const result: ReplayResult = { replayed: [], skipped: [], dryRun: options.dryRun };
  const untouched = [...skipped];
  const interval = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
  try {
    for (const [index, entry] of matched.entries()) {
      const messageId = entry.message.MessageId ?? '?';
      const destination = destinationOf(entry, options.to, sources);
      if ('why' in destination) {
        result.skipped.push({ messageId, why: destination.why });
        untouched.push(entry.message);
        continue;
      }
      const { to } = destination;
      if (options.dryRun) {
        result.replayed.push({ messageId, to });
        untouched.push(entry.message);
        continue;
      }
      if (interval > 0 && index > 0) await sleep(interval);
      const stopped = (problem: string, sent: boolean, cause?: unknown) => {
        // One sent but not deleted is not released: it would be replayed twice.
        untouched.push(...(sent ? [] : [entry.message]), ...matched.slice(index + 1).map((e) => e.message));
        return new DeadLetterOperationError(`${problem} (${result.replayed.length} replayed; the rest stay in the DLQ)`, { cause });
      };
      const { sent, problems } = await sendBackBatch(target, to, [entry], options).catch((error: Error) => {
        throw stopped(error.message, false, error);
      });
      if (problems.length > 0) throw stopped(problems.join('; '), sent.length > 0);
      result.replayed.push({ messageId, to });
    }
  } finally {
    await releaseDeadLetters(target, untouched);
  }
  return result;
}
