import type { EncodedMessage } from './outgoing.js';

/** SQS and SNS batch calls take at most 10 entries. */
export const MAX_BATCH_ENTRIES = 10;

/** A batch: the indexes of its messages in the caller's list. */
export type Batch = number[];

/**
 * Splits messages, in order, into batches of at most 10 entries and at most `maxBytes`
 * together: SQS counts a batch's payload against 1 MiB, SNS against 256 KiB.
 */
export function chunkBatches(messages: readonly EncodedMessage[], maxBytes: number): Batch[] {
  const batches: Batch[] = [];
  let current: Batch = [];
  let bytes = 0;
  messages.forEach((message, index) => {
    if (current.length === MAX_BATCH_ENTRIES || (current.length > 0 && bytes + message.bytes > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(index);
    bytes += message.bytes;
  });
  if (current.length > 0) batches.push(current);
  return batches;
}
