/**
 * The error types the shipped policy preset knows. Users may add their own: any
 * string works as an `errorType`, and falls back to `DEFAULT` when no policy names it.
 */
export const ErrorType = {
  RATE_LIMIT: 'RATE_LIMIT',
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  TEMPORARY: 'TEMPORARY',
  DEFAULT: 'DEFAULT',
  /** Non-retryable: 4xx, `NonRetryableError`, `UnrecoverableError`. */
  PERMANENT: 'PERMANENT',
  /** Non-retryable: the body failed the consumer's schema; `x-dead-letter.error` lists the issues. */
  VALIDATION: 'VALIDATION',
  /** Non-retryable: the handler threw something that is not an `Error`, or a code bug (`TypeError`, `ReferenceError`, …). */
  HANDLER_BUG: 'HANDLER_BUG',
} as const;

/**
 * Why a message was dead-lettered, as `x-dead-letter.reason` says: its failure is not
 * retryable, it used its attempts, it passed its deadline, its retry state could not be
 * trusted, or the handler has a bug.
 */
export type DeadLetterReason = 'non-retryable' | 'max-attempts' | 'deadline-exceeded' | 'invalid-retry-state' | 'handler-bug';

/** Every `DeadLetterReason`, in the order reports list them. */
export const DEAD_LETTER_REASONS: readonly DeadLetterReason[] = ['non-retryable', 'max-attempts', 'deadline-exceeded', 'invalid-retry-state', 'handler-bug'];

/**
 * What a DLQ message without `x-dead-letter` was moved there by: SQS's own redrive, the
 * crash backstop (`maxReceiveCount`). Not a reason the worker writes; the one operators
 * filter and report such messages by.
 */
export const REDRIVE_BACKSTOP = 'redrive-backstop';

/**
 * What a DLQ message without `x-dead-letter` that had no room for it (10 attributes, or
 * at the size limit) is filed under: the worker sent it unchanged, and its reason is in
 * the worker's `dead-lettered` log line carrying its id as `deadLetterMessageId`.
 */
export const NO_ROOM_FOR_REASON = 'no-room';
