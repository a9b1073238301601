import { ConfigError } from '@requeue/retry';
import { redactUrlCredentials } from '@requeue/retry/engine';
import type { EntryOutcome } from './sqs-io/batcher.js';

/** A worker option that is missing or out of range. `option` names it. */
export class SqsWorkerConfigError extends ConfigError {
  constructor(
    /** The option at fault, e.g. `maxInFlight`. */
    readonly option: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(option, problem, options);
    this.name = 'SqsWorkerConfigError';
  }
}

/**
 * An SQS call (or one entry of a batch call) failed. Carries the queue and the messages
 * affected so an operator can find them; `cause` is the SDK error or the batch entry.
 */
export class SqsOperationError extends Error {
  /** The queue it was made to, without any credentials its URL carried (errors are logged). */
  readonly queueUrl: string;

  constructor(
    /** The SQS call that failed. */
    readonly operation: 'DeleteMessageBatch' | 'SendMessageBatch' | 'ChangeMessageVisibilityBatch',
    queueUrl: string,
    /** The messages it was for. */
    readonly messageIds: readonly string[],
    message: string,
    /** SQS's error code, e.g. `ReceiptHandleIsInvalid`, when it gave one. */
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${operation} on ${redactUrlCredentials(queueUrl)} failed for ${messageIds.length} message(s): ${message}`, options);
    this.name = 'SqsOperationError';
    this.queueUrl = redactUrlCredentials(queueUrl);
  }
}

/** A failed batch entry as a typed error, so logs carry the queue, the message and the SQS code. */
export function batchFailure(
  operation: SqsOperationError['operation'],
  queueUrl: string,
  message: { messageId: string },
  outcome: Extract<EntryOutcome, { ok: false }>,
): SqsOperationError;
export function batchFailure(
  operation: SqsOperationError['operation'],
  queueUrl: string,
  message: { messageId: string },
  outcome: EntryOutcome,
): SqsOperationError | undefined;
export function batchFailure(
  operation: SqsOperationError['operation'],
  queueUrl: string,
  message: { messageId: string },
  outcome: EntryOutcome,
): SqsOperationError | undefined {
  if (outcome.ok) return undefined;
  return new SqsOperationError(operation, queueUrl, [message.messageId], outcome.message, outcome.code, { cause: outcome.cause });
}

/** Raised into a handler's signal when shutdown outlasts the drain timeout. */
export class WorkerStoppingError extends Error {
  constructor() {
    super('worker is stopping: drain timeout reached');
    this.name = 'WorkerStoppingError';
  }
}
