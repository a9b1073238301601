import { z } from 'zod';
import { DEAD_LETTER_REASONS, type DeadLetterReason } from './error-types.js';
import { parseAttributeJson } from './attribute-json.js';

export const DEAD_LETTER_ATTRIBUTE = 'x-dead-letter';

/** The `x-dead-letter` attribute: why a message is in the DLQ and where it came from. */
export interface DeadLetterRecord {
  reason: DeadLetterReason;
  errorType: string;
  error: string;
  attempts: number;
  firstReceivedAt: number;
  deadLetteredAt: number;
  sourceQueue: string;
  originalMessageId: string;
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
});

export function encodeDeadLetterRecord(record: DeadLetterRecord): string {
  const { reason, errorType, error, attempts, firstReceivedAt, deadLetteredAt, sourceQueue, originalMessageId } = record;
  return JSON.stringify({ reason, errorType, error, attempts, firstReceivedAt, deadLetteredAt, sourceQueue, originalMessageId });
}

export function parseDeadLetterRecord(raw: string): DeadLetterRecord {
  return parseAttributeJson(recordSchema, raw, 'x-dead-letter');
}
