import { DeadLetterOperationError } from './errors.js';
import type { Message } from '@aws-sdk/client-sqs';
import { releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';
import { destinationOf, sendBackBatch, type SendBackOptions } from './send-back.js';
import { sourceQueuePolicy, type SourceQueuePolicy } from './source-queues.js';

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
  /**
   * Sent back, and deleted from the DLQ. `ownIdentity` says why one goes back as its own
   * message (a new idempotency key): its `x-retry` did not verify for it.
   */
  replayed: Array<{ messageId: string; to: string; ownIdentity?: string }>;
  /** Left in the DLQ, and why. */
  skipped: Array<{ messageId: string; why: string }>;
  /** Whether this was a dry run. */
  dryRun: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends matching DLQ messages back, body byte for byte, and deletes each from the DLQ only
 * after its send succeeded: a failure leaves it in the DLQ, never nowhere. A FIFO DLQ
 * shows a group's later letters only once the ones before them are gone, so it is read
 * again after each round until nothing more matches: each group goes back in its order.
 */
export async function replayDeadLetters(target: DeadLetterQueue, filter: DlqFilter, options: ReplayOptions): Promise<ReplayResult> {
  const sources = options.to === undefined ? await sourceQueuePolicy(target) : undefined;
  const result: ReplayResult = { replayed: [], skipped: [], dryRun: options.dryRun };
  const untouched: Message[] = [];
  const rounds = target.dlqUrl.endsWith('.fifo') && !options.dryRun ? Infinity : 1;
  try {
    for (let round = 0; round < rounds; round++) {
      const max = options.max === undefined ? undefined : options.max - result.replayed.length;
      if (max === 0) break;
      const { matched, skipped } = await scanDlq(target, filter, { limit: max, hideSeconds: 120 });
      untouched.push(...skipped);
      const before = result.replayed.length;
      await replayRound(target, matched, options, sources, result, untouched);
      if (result.replayed.length === before) break;
    }
  } finally {
    await releaseDeadLetters(target, untouched);
  }
  return result;
}

/** Replays what one read of the DLQ matched, in order; what it does not send goes into `untouched`. */
async function replayRound(
  target: DeadLetterQueue,
  matched: DlqEntry[],
  options: ReplayOptions,
  sources: SourceQueuePolicy | undefined,
  result: ReplayResult,
  untouched: Message[],
): Promise<void> {
  const interval = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
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
    if (interval > 0 && result.replayed.length > 0) await sleep(interval);
    const stopped = (problem: string, sent: boolean, cause?: unknown) => {
      // One sent but not deleted is not released: it would be replayed twice.
      untouched.push(...(sent ? [] : [entry.message]), ...matched.slice(index + 1).map((e) => e.message));
      return new DeadLetterOperationError(`${problem} (${result.replayed.length} replayed; the rest stay in the DLQ)`, { cause });
    };
    const { sent, problems } = await sendBackBatch(target, to, [entry], options).catch((error: Error) => {
      throw stopped(error.message, false, error);
    });
    if (problems.length > 0) throw stopped(problems.join('; '), sent.length > 0);
    const ownIdentity = sent[0]?.ownIdentity;
    result.replayed.push({ messageId, to, ...(ownIdentity ? { ownIdentity } : {}) });
  }
}
