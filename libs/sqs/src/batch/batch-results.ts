import type { SpanContext } from '@opentelemetry/api';
import type { WorkerLogger } from '../events/logger.js';
import type { WorkerMessage } from '../message/worker-message.js';
import { BatchResultMissingError, type BatchItemResult } from './batch-options.js';

/** A message waiting in a batch, and how to end its handler call. */
export interface BatchMember {
  message: WorkerMessage;
  /** Its process span, for the batch span's links. */
  link: SpanContext | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Ends each member's handler call from the batch handler's result: nothing means all
 * succeeded; otherwise each entry settles the message it names, and a message with no
 * entry fails with `BatchResultMissingError`. Entries naming no message of the batch, and
 * repeats, are logged and ignored: the first entry for a message counts.
 */
export function settleBatchItems(members: readonly BatchMember[], results: readonly BatchItemResult[] | void, logger: WorkerLogger): void {
  if (results === undefined) {
    for (const member of members) member.resolve();
    return;
  }
  if (!Array.isArray(results)) {
    const error = new TypeError('a batch handler must resolve with an array of { messageId, ok } results, or with nothing when every message succeeded');
    for (const member of members) member.reject(error);
    return;
  }
  const waiting = new Map(members.map((member) => [member.message.messageId, member]));
  const strays: unknown[] = [];
  for (const result of results as readonly Partial<BatchItemResult>[]) {
    const member = result ? waiting.get(result.messageId ?? '') : undefined;
    if (!member) {
      strays.push(result?.messageId);
      continue;
    }
    waiting.delete(member.message.messageId);
    if (result.ok === true) member.resolve();
    else member.reject('error' in result ? result.error : undefined);
  }
  for (const [messageId, member] of waiting) member.reject(new BatchResultMissingError(messageId));
  if (waiting.size > 0 || strays.length > 0) {
    logger.warn(
      { missing: [...waiting.keys()], unknownOrRepeated: strays },
      'batch handler result does not name each message of its batch once: messages it left out count as failed; fix the handler',
    );
  }
}
