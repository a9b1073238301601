import { outOfRange } from '@requeue/retry/engine';
import { SqsWorkerConfigError } from '../errors.js';
import type { WorkerMessage } from '../message/worker-message.js';
import { OPTION_LIMITS } from '../option-limits.js';

/** One message's part of a batch's result: done, or failed with an error to classify as a handler's throw would be. */
export type BatchItemResult = { messageId: string; ok: true } | { messageId: string; ok: false; error: unknown };

/** What a batch handler gets beside its messages. */
export interface BatchContext {
  /** Aborted when any message of the batch times out (`handlerTimeoutMs`) or shutdown outlasts the drain. */
  signal: AbortSignal;
}

/**
 * Handles up to `batch.size` messages in one call. Resolve with nothing when every message
 * succeeded; with a result per message (`BatchItemResult`, by `messageId`) when some
 * failed, each failure then retried or dead-lettered by its own error and policy; throw
 * when the whole batch failed with one error. A message the result leaves out counts as
 * failed with a `BatchResultMissingError` (docs/worker.md, Batch handlers).
 */
export type BatchHandler<Body = unknown> = (messages: ReadonlyArray<WorkerMessage<Body>>, context: BatchContext) => Promise<readonly BatchItemResult[] | void>;

/** `SqsWorkerOptions.batch`: messages handled many per call, each settled by its own result. */
export interface BatchOptions<Body = unknown> {
  /** Called with up to `size` messages; see `BatchHandler`. */
  handler: BatchHandler<Body>;
  /** Messages per call at most, 1–1,000, and at most `maxInFlight`. @default 10 */
  size?: number;
  /**
   * How long the first message of a batch waits for others, 0–60,000 ms. A batch also
   * starts at once when it is full, or when no other message can join it (every handler
   * slot is in the batch). @default 50
   */
  windowMs?: number;
}

export interface ResolvedBatch<Body = unknown> {
  handler: BatchHandler<Body>;
  size: number;
  windowMs: number;
}

/** A message the batch handler's result did not mention: the handler has a defect, and the message is retried as failed. */
export class BatchResultMissingError extends Error {
  constructor(
    /** The message the result left out. */
    readonly messageId: string,
  ) {
    super(
      `the batch handler's result has no entry for message ${messageId}: it counts as failed; return a result for every message, or nothing when all succeeded`,
    );
    this.name = 'BatchResultMissingError';
  }
}

/** Validates `batch`, naming the field that is wrong. */
export function resolveBatch<Body>(batch: BatchOptions<Body>, maxInFlight: number): ResolvedBatch<Body> {
  if (typeof batch !== 'object' || batch === null || typeof batch.handler !== 'function')
    throw new SqsWorkerConfigError('batch.handler', 'must be a function taking the batch of messages');
  const size = batch.size ?? OPTION_LIMITS.batchSize.default;
  const windowMs = batch.windowMs ?? OPTION_LIMITS.batchWindowMs.default;
  const problem = outOfRange(size, OPTION_LIMITS.batchSize);
  if (problem) throw new SqsWorkerConfigError('batch.size', problem);
  if (size > maxInFlight)
    throw new SqsWorkerConfigError(
      'batch.size',
      `must be at most maxInFlight (${maxInFlight}): each message of a batch holds a handler slot, so a larger batch could never fill`,
    );
  const windowProblem = outOfRange(windowMs, OPTION_LIMITS.batchWindowMs);
  if (windowProblem) throw new SqsWorkerConfigError('batch.windowMs', windowProblem);
  return { handler: batch.handler, size, windowMs };
}
