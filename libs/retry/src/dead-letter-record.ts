import { z } from 'zod';
import { DEAD_LETTER_REASONS, type DeadLetterReason } from './error-types.js';
import { parseAttributeJson } from './attribute-json.js';

/**
 * Bytes requeue keeps free below the DLQ's `MaximumMessageSize` for what it adds to a
 * dead letter (`x-dead-letter`, `x-retry`, the trace context, each bounded). A source
 * queue whose own limit is this much under its DLQ's has room for every dead letter's
 * reason; `RetryingQueue` sets it so, and `RequeuePublisher` sends no larger message.
 */
export const RESERVED_BYTES = 8192;

/** The attribute that carries `DeadLetterRecord` on a dead letter. */
export const DEAD_LETTER_ATTRIBUTE = 'x-dead-letter';

/** The `x-dead-letter` attribute: why a message is in the DLQ and where it came from. */
export interface DeadLetterRecord {
  /** Why it was dead-lettered. */
  reason: DeadLetterReason;
  /** The last failure's error type. */
  errorType: string;
  /** The last failure's text, scrubbed of secrets. */
  error: string;
  /** Attempts made. */
  attempts: number;
  /** Epoch ms of the first receive. */
  firstReceivedAt: number;
  /** Epoch ms at which the worker dead-lettered it. */
  deadLetteredAt: number;
  /** The URL of the queue it came from: where a replay sends it. */
  sourceQueue: string;
  /** The id of its first delivery: its idempotency key. */
  originalMessageId: string;
  /**
   * A FIFO message's group. In a FIFO DLQ each dead letter is its own group, so every
   * one can be listed, replayed or discarded on its own (a group's later messages stay
   * hidden while its first is read); replay puts the message back into this group.
   */
  messageGroupId?: string;
}

const recordSchema = z.object({
  reason: z.enum(DEAD_LETTER_REASONS),
  errorType: z.string(),
  error: z.string(),
  attempts: z.number().int().min(0),
  firstReceivedAt: z.number(),
  deadLetteredAt: z.number(),
  sourceQueue: z.string(),
  originalMessageId: z.string(),
  messageGroupId: z.string().min(1).max(128).optional(),
});

/** `x-dead-letter`'s value for a record. */
export function encodeDeadLetterRecord(record: DeadLetterRecord): string {
  const { reason, errorType, error, attempts, firstReceivedAt, deadLetteredAt, sourceQueue, originalMessageId, messageGroupId } = record;
  return JSON.stringify({ reason, errorType, error, attempts, firstReceivedAt, deadLetteredAt, sourceQueue, originalMessageId, messageGroupId });
}

/**
 * Reads `x-dead-letter`; throws `InvalidRetryStateError` when it does not parse or is out of range.
 */
export function parseDeadLetterRecord(raw: string): DeadLetterRecord {
  return parseAttributeJson(recordSchema, raw, 'x-dead-letter');
}
