import { queueDepth } from '../sqs-io/queue-depth.js';
import { unwrapSnsEnvelope } from '../message/sns-envelope.js';
import { causeId, deadLetterCause, type DeadLetterCause } from './cause.js';
import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { NO_ROOM_FOR_REASON, parseDeadLetterRecord, REDRIVE_BACKSTOP, type DeadLetterRecord } from '@requeue/retry/engine';
import { MAX_MESSAGE_ATTRIBUTES, MAX_MESSAGE_BYTES, messageBytes, RESERVED_BYTES, type MessageAttributes } from '../message/message-attributes.js';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** A dead-letter queue and the client to reach it. */
export interface DeadLetterQueue {
  /** The client to reach it with. */
  sqs: SQSClient;
  /** The DLQ's URL. */
  dlqUrl: string;
}

/** One dead letter, read: the message and why it is there. */
export interface DlqEntry {
  /** The SQS message, as received. */
  message: Message;
  /** The worker's `x-dead-letter`, when the message has a valid one. */
  record: DeadLetterRecord | undefined;
  /**
   * `x-dead-letter.reason`; `no-room` for one the worker sent without it (no room: its reason
   * is in the worker's log); else `redrive-backstop`, moved by SQS itself.
   */
  reason: string;
  /** The last failure's error type, or `UNKNOWN`. */
  errorType: string;
  /** Attempts made, from the record or the receive count. */
  attempts: number;
  /** Epoch ms of its first receive, when known. */
  firstReceivedAt: number | undefined;
  /** Epoch ms at which it was dead-lettered, when known. */
  deadLetteredAt: number | undefined;
}

/** Which dead letters an operation takes; every field set must match. */
export interface DlqFilter {
  /** Exactly this message (the dashboard's replay and discard buttons). */
  messageId?: string;
  /** Only this reason (or `redrive-backstop`). */
  reason?: string;
  /** Only this error type. */
  errorType?: string;
  /** Only messages dead-lettered more than this many ms ago. */
  olderThanMs?: number;
  /** Only this cause: a group id from `triageDeadLetters` (`requeue dlq triage`). */
  group?: string;
}

/** A read dead letter's cause, and its group id. */
export function causeOfEntry(entry: DlqEntry): DeadLetterCause {
  return deadLetterCause({ reason: entry.reason, errorType: entry.errorType, error: entry.record?.error, sourceQueue: entry.record?.sourceQueue });
}

/** A received message, read as a dead letter. */
export function toEntry(message: Message): DlqEntry {
  const raw = message.MessageAttributes?.['x-dead-letter']?.StringValue;
  let record: DeadLetterRecord | undefined;
  try {
    record = raw === undefined ? undefined : bounded(parseDeadLetterRecord(raw));
  } catch {
    record = undefined;
  }
  const sent = Number(message.Attributes?.SentTimestamp);
  return {
    message,
    record,
    reason: record?.reason ?? (hadNoRoom(message) ? NO_ROOM_FOR_REASON : REDRIVE_BACKSTOP),
    errorType: record?.errorType ?? 'UNKNOWN',
    attempts: record?.attempts ?? Number(message.Attributes?.ApproximateReceiveCount ?? 0),
    firstReceivedAt: record?.firstReceivedAt ?? (Number.isFinite(sent) ? sent : undefined),
    deadLetteredAt: record?.deadLetteredAt ?? (Number.isFinite(sent) ? sent : undefined),
  };
}

/** The longest error text and error type read from `x-dead-letter`: the worker writes at most 512; anyone else may write a megabyte. */
const MAX_READ_FIELD = 2048;

/** A record whose text fields are cut to `MAX_READ_FIELD`, saying so. */
function bounded(record: DeadLetterRecord): DeadLetterRecord {
  const cut = (text: string) =>
    text.length <= MAX_READ_FIELD ? text : `${text.slice(0, MAX_READ_FIELD)}… ` + `(cut: ${text.length} characters in x-dead-letter)`;
  return { ...record, error: cut(record.error), errorType: cut(record.errorType) };
}

/**
 * A dead letter without `x-dead-letter` that could not have carried it: 10 attributes, or
 * within the room requeue keeps under SQS's size limit. The worker sent it as it was.
 */
function hadNoRoom(message: Message): boolean {
  const attributes = (message.MessageAttributes ?? {}) as MessageAttributes;
  return Object.keys(attributes).length >= MAX_MESSAGE_ATTRIBUTES || messageBytes(message.Body ?? '', attributes) > MAX_MESSAGE_BYTES - RESERVED_BYTES;
}

/** The SNS MessageId in a body that is an SNS envelope (dead letters keep the body byte for byte), else null. */
function snsMessageIdOf(body: string): string | null {
  const unwrapped = unwrapSnsEnvelope(body, {});
  return unwrapped.kind === 'sns' ? unwrapped.snsMessageId : null;
}

/** What an operator sees of a dead letter, as plain data: the CLI's `--json` and the dashboard's table. */
export function deadLetterSummary(entry: DlqEntry) {
  return {
    messageId: entry.message.MessageId ?? '',
    /** The id of its first delivery, which the worker logs as `originalMessageId`. */
    originalMessageId: entry.record?.originalMessageId ?? null,
    reason: entry.reason,
    errorType: entry.errorType,
    error: entry.record?.error ?? null,
    attempts: entry.attempts,
    firstReceivedAt: entry.firstReceivedAt ?? null,
    deadLetteredAt: entry.deadLetteredAt ?? null,
    sourceQueue: entry.record?.sourceQueue ?? null,
    snsMessageId: snsMessageIdOf(entry.message.Body ?? ''),
    body: entry.message.Body ?? '',
  };
}

export function matches(entry: DlqEntry, filter: DlqFilter, now: number): boolean {
  if (filter.messageId !== undefined && entry.message.MessageId !== filter.messageId) return false;
  if (filter.reason !== undefined && entry.reason !== filter.reason) return false;
  if (filter.errorType !== undefined && entry.errorType !== filter.errorType) return false;
  if (filter.olderThanMs !== undefined && (entry.deadLetteredAt === undefined || now - entry.deadLetteredAt < filter.olderThanMs)) return false;
  if (filter.group !== undefined && causeId(causeOfEntry(entry)) !== filter.group) return false;
  return true;
}

/**
 * Reads the DLQ without consuming it: every message received is hidden for
 * `hideSeconds` while we look, then released by the caller (or by SQS when the time is
 * up, if this process dies). Stops once `limit` messages matched, or the queue has
 * nothing more to give on two receives in a row. On a FIFO DLQ SQS shows a group's later
 * letters only once those before them are gone: `behind` counts the letters still
 * visible after the read, which it could not reach (0 on a standard DLQ).
 */
export async function scanDlq(target: DeadLetterQueue, filter: DlqFilter, options: { limit?: number; hideSeconds?: number; now?: number } = {}) {
  const now = options.now ?? Date.now();
  const matched: DlqEntry[] = [];
  const skipped: Message[] = [];
  let emptyReceives = 0;
  let receives = 0;
  while (emptyReceives < 2 && (options.limit === undefined || matched.length < options.limit)) {
    receives++;
    const out = await target.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: target.dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: options.hideSeconds ?? 60,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = out.Messages ?? [];
    emptyReceives = messages.length === 0 ? emptyReceives + 1 : 0;
    for (const message of messages) {
      const entry = toEntry(message);
      if (matches(entry, filter, now) && (options.limit === undefined || matched.length < options.limit)) matched.push(entry);
      else skipped.push(message);
    }
  }
  const behind = target.dlqUrl.endsWith('.fifo') ? (await queueDepth(target.sqs, target.dlqUrl)).visible : 0;
  return { matched, skipped, receives, behind };
}

/** Makes messages visible again at once, for the worker or the next operator. */
export async function releaseDeadLetters(target: DeadLetterQueue, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    await target.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: target.dlqUrl,
        Entries: batch.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 })),
      }),
    );
  }
}
