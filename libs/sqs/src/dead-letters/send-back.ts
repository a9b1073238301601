import { DeleteMessageBatchCommand, SendMessageBatchCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import {
  encodeRetryState,
  parseRetryState,
  RETRY_POLICY_ATTRIBUTE,
  RETRY_STATE_ATTRIBUTE,
  type RetryState,
  type RetryStateSigner,
} from '@requeue/retry/engine';
import { messageDigest } from '../message/message-digest.js';
import { userAttributes, type MessageAttributes } from '../message/message-attributes.js';
import { DeadLetterOperationError } from './errors.js';
import type { DeadLetterQueue, DlqEntry } from './scan.js';
import type { SourceQueuePolicy } from './source-queues.js';

/** How a dead letter goes back to a queue: what replay and redrive share. */
export interface SendBackOptions {
  /** Start the budget afresh (attempt 1, a new deadline); otherwise the message keeps its attempts. */
  resetAttempts: boolean;
  /**
   * Signs the `x-retry` it carries with the workers' keys (`WORKER_RETRY_STATE_KEYS`), so it
   * keeps its identity (idempotency key). @default unsigned: it keeps its attempts, and is its own message
   */
  signer?: RetryStateSigner;
}

/** A dead letter's attributes for its way back, and whether it keeps its identity. */
export interface SentBackAttributes {
  attributes: MessageAttributes;
  /** Set when its `x-retry` named an identity it cannot keep: why it goes back as its own message (a new idempotency key). */
  ownIdentity?: string;
}

/**
 * The attributes a message sent back carries: the publisher's own, unchanged; its
 * `x-retry-policy`; and, unless the budget is reset, its `x-retry` moved on to the next
 * attempt, so the message keeps its history (and its deadline). The state is signed again
 * only when its MAC verifies for this very message: anyone who can write to the DLQ could
 * otherwise choose the identity a body runs under. Otherwise it goes back unsigned, keeping
 * its attempts, and the worker gives it its own identity.
 */
export function replayAttributes(entry: DlqEntry, resetAttempts: boolean, now: number, signer?: RetryStateSigner): SentBackAttributes {
  const all = (entry.message.MessageAttributes ?? {}) as Record<string, MessageAttributeValue>;
  const attributes: MessageAttributes = { ...userAttributes(all) };
  if (all[RETRY_POLICY_ATTRIBUTE]) attributes[RETRY_POLICY_ATTRIBUTE] = all[RETRY_POLICY_ATTRIBUTE];
  const rawState = all[RETRY_STATE_ATTRIBUTE]?.StringValue;
  if (resetAttempts || rawState === undefined) return { attributes };
  let state: RetryState;
  try {
    state = parseRetryState(rawState, now);
  } catch {
    // A state the worker would reject anyway: the message starts afresh rather than re-fail.
    return { attributes };
  }
  const digest = messageDigest(entry.message.Body ?? '', userAttributes(all));
  const next: RetryState = { ...state, mac: undefined, attempt: state.attempt + 1, notBefore: undefined };
  const verified = signer?.verifies(state, digest) === true;
  attributes[RETRY_STATE_ATTRIBUTE] = { DataType: 'String', StringValue: verified ? signer!.sign(next, digest) : encodeRetryState(next) };
  if (verified) return { attributes };
  const why = signer ? 'its x-retry does not verify with WORKER_RETRY_STATE_KEYS' : 'WORKER_RETRY_STATE_KEYS is not set, so its x-retry cannot be verified';
  return { attributes, ownIdentity: `${why}: it goes back as its own message (attempts kept, a new idempotency key)` };
}

/**
 * The message group a dead letter goes back into. A FIFO queue takes every message in a
 * group, with a deduplication id: the dead letter's own id makes a resend after a lost
 * answer a no-op. A standard queue takes the group too (a fair queue's tenant), when the
 * worker recorded one.
 */
function groupFields(to: string, entry: DlqEntry): { MessageGroupId?: string; MessageDeduplicationId?: string } {
  const recorded = entry.record?.messageGroupId ?? entry.message.Attributes?.MessageGroupId;
  if (!to.endsWith('.fifo')) return recorded === undefined ? {} : { MessageGroupId: recorded };
  return { MessageGroupId: recorded ?? 'requeue', MessageDeduplicationId: entry.message.MessageId ?? undefined };
}

/**
 * Where a dead letter goes back to: `to` when the operator named a queue, else its
 * `x-dead-letter` source queue, which is data anyone who can send to the DLQ can forge and
 * is followed only where `sources` allows.
 */
export function destinationOf(entry: DlqEntry, to: string | undefined, sources: SourceQueuePolicy | undefined): { to: string } | { why: string } {
  if (to !== undefined) return { to };
  const recorded = entry.record?.sourceQueue;
  if (!recorded) return { why: 'no x-dead-letter source queue (moved by SQS redrive): pass --to <queue-url>' };
  if (sources && !sources.allows(recorded))
    return { why: `its x-dead-letter source queue ${recorded} ${sources.refusal}: pass --to <queue-url> to send it there` };
  return { to: recorded };
}

/** What `sendBackBatch` did with each dead letter. */
export interface BatchSent {
  /** Sent back as `redrivenAs`; `deleted` from the DLQ unless a problem says otherwise. */
  sent: Array<{ entry: DlqEntry; to: string; redrivenAs: string; deleted: boolean; ownIdentity?: string }>;
  /** What went wrong, worded for the operator: each dead letter not sent stays in the DLQ. */
  problems: string[];
}

/**
 * Up to ten dead letters for one queue, back with one SendMessageBatch (body byte for
 * byte) and out of the DLQ with one DeleteMessageBatch, each deleted only once sent: a
 * failure leaves a dead letter in the DLQ, never nowhere. A tenth of the calls of one at a
 * time, so a redrive keeps a high rate. A FIFO queue keeps a batch's order within each
 * group. Throws, having sent nothing, when the send call itself fails.
 */
export async function sendBackBatch(target: DeadLetterQueue, to: string, entries: readonly DlqEntry[], options: SendBackOptions): Promise<BatchSent> {
  const now = Date.now();
  const outgoing = entries.map((entry) => replayAttributes(entry, options.resetAttempts, now, options.signer));
  const out = await target.sqs
    .send(
      new SendMessageBatchCommand({
        QueueUrl: to,
        Entries: entries.map((entry, i) => ({
          Id: String(i),
          MessageBody: entry.message.Body!,
          MessageAttributes: outgoing[i]!.attributes,
          ...groupFields(to, entry),
        })),
      }),
    )
    .catch((cause: Error) => {
      throw new DeadLetterOperationError(`could not send ${entries.length} dead letter(s) to ${to}: ${cause.message}; they stay in the DLQ`, { cause });
    });
  const idOf = (i: string | undefined) => entries[Number(i)]!.message.MessageId ?? '?';
  const problems = (out.Failed ?? []).map(
    (failure) => `could not send ${idOf(failure.Id)} to ${to} (${failure.Code}: ${failure.Message ?? ''}); it stays in the DLQ`,
  );
  const sent = (out.Successful ?? []).map((success) => {
    const { ownIdentity } = outgoing[Number(success.Id)]!;
    return { entry: entries[Number(success.Id)]!, to, redrivenAs: success.MessageId ?? '', deleted: true, ...(ownIdentity ? { ownIdentity } : {}) };
  });
  if (sent.length === 0) return { sent, problems };
  const deleted = await target.sqs
    .send(
      new DeleteMessageBatchCommand({
        QueueUrl: target.dlqUrl,
        Entries: sent.map(({ entry }, i) => ({ Id: String(i), ReceiptHandle: entry.message.ReceiptHandle! })),
      }),
    )
    .catch((cause: Error) => ({ Failed: sent.map((_, i) => ({ Id: String(i), Code: cause.name, Message: cause.message })) }));
  for (const failure of deleted.Failed ?? []) {
    const item = sent[Number(failure.Id)]!;
    item.deleted = false;
    problems.push(
      `sent ${item.entry.message.MessageId ?? '?'} to ${to} as ${item.redrivenAs}, but could not delete it from the DLQ (${failure.Code}: ` +
        `${failure.Message ?? ''}): delete it before redriving again, or it runs twice`,
    );
  }
  return { sent, problems };
}
