import { DeleteMessageCommand, SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { encodeRetryState, parseRetryState, RETRY_POLICY_ATTRIBUTE, RETRY_STATE_ATTRIBUTE, type RetryStateSigner } from '@requeue/retry/engine';
import { userAttributes, type MessageAttributes } from '../message-attributes.js';
import { DeadLetterOperationError } from './errors.js';
import { releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';
import { sourceQueuePolicy } from './source-queues.js';

/** How `replayDeadLetters` sends dead letters back. */
export interface ReplayOptions {
  /** Where to send; by default each message's source queue from `x-dead-letter`. */
  to?: string;
  /**
   * Start the budget afresh (attempt 1, a new deadline); otherwise the message keeps its attempts.
   */
  resetAttempts: boolean;
  /**
   * At most this many messages a second, so a replay does not become a burst against the
   * dependency.
   */
  ratePerSecond?: number;
  /** At most this many messages. */
  max?: number;
  /** Report what would be replayed; send and delete nothing. */
  dryRun: boolean;
  /**
   * Signs the replayed `x-retry` with the workers' keys, so the message keeps its identity
   * (idempotency key). @default unsigned: it keeps its attempts, and is its own message
   */
  signer?: RetryStateSigner;
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

/**
 * The attributes a replayed message carries: the publisher's own, unchanged; its
 * `x-retry-policy`; and, unless the budget is reset, its `x-retry` moved on to the next
 * attempt, so the message keeps its history (and its deadline).
 */
export function replayAttributes(entry: DlqEntry, resetAttempts: boolean, now: number, signer?: RetryStateSigner): MessageAttributes {
  const all = (entry.message.MessageAttributes ?? {}) as Record<string, MessageAttributeValue>;
  const attributes: MessageAttributes = { ...userAttributes(all) };
  if (all[RETRY_POLICY_ATTRIBUTE]) attributes[RETRY_POLICY_ATTRIBUTE] = all[RETRY_POLICY_ATTRIBUTE];
  const rawState = all[RETRY_STATE_ATTRIBUTE]?.StringValue;
  if (!resetAttempts && rawState !== undefined) {
    try {
      const { mac: _mac, ...state } = parseRetryState(rawState, now);
      const next = { ...state, attempt: state.attempt + 1, notBefore: undefined };
      attributes[RETRY_STATE_ATTRIBUTE] = { DataType: 'String', StringValue: signer ? signer.sign(next) : encodeRetryState(next) };
    } catch {
      // A state the worker would reject anyway: the replay starts afresh rather than re-fail.
    }
  }
  return attributes;
}

/**
 * A FIFO queue takes every message in a group, with a deduplication id. The message goes
 * back into the group it came from: the worker's record names it, and a message SQS
 * moved by redrive kept its own. The dead letter's id makes a resend after a lost answer
 * a no-op (it is deleted from the DLQ once replayed, so a later replay of the same job is
 * a new dead letter with a new id).
 */
function fifoFields(to: string, entry: DlqEntry): { MessageGroupId?: string; MessageDeduplicationId?: string } {
  if (!to.endsWith('.fifo')) return {};
  const group = entry.record?.messageGroupId ?? entry.message.Attributes?.MessageGroupId ?? 'requeue';
  return { MessageGroupId: group, MessageDeduplicationId: entry.message.MessageId ?? undefined };
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
      const to = options.to ?? entry.record?.sourceQueue;
      if (!to) {
        result.skipped.push({ messageId, why: 'no x-dead-letter source queue (moved by SQS redrive): pass --to <queue-url>' });
        untouched.push(entry.message);
        continue;
      }
      // x-dead-letter is data anyone who can send to the DLQ can forge (see sourceQueuePolicy).
      if (sources && !sources.allows(to)) {
        result.skipped.push({ messageId, why: `its x-dead-letter source queue ${to} ${sources.refusal}: pass --to <queue-url> to send it there` });
        untouched.push(entry.message);
        continue;
      }
      if (options.dryRun) {
        result.replayed.push({ messageId, to });
        untouched.push(entry.message);
        continue;
      }
      if (interval > 0 && index > 0) await sleep(interval);
      try {
        await target.sqs.send(
          new SendMessageCommand({ QueueUrl: to, MessageBody: entry.message.Body!, MessageAttributes: replayAttributes(entry, options.resetAttempts, Date.now(), options.signer), ...fifoFields(to, entry) }),
        );
      } catch (cause) {
        untouched.push(...matched.slice(index).map((e) => e.message));
        throw new DeadLetterOperationError(`could not send ${messageId} to ${to}: ${(cause as Error).message}; it and the rest stay in the DLQ (${result.replayed.length} replayed)`, { cause });
      }
      await target.sqs.send(new DeleteMessageCommand({ QueueUrl: target.dlqUrl, ReceiptHandle: entry.message.ReceiptHandle! }));
      result.replayed.push({ messageId, to });
    }
  } finally {
    await releaseDeadLetters(target, untouched);
  }
  return result;
}
