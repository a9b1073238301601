/**
 * Limits every configured or message-supplied value is checked against. They come from
 * SQS itself where one applies, so a valid policy can never ask SQS for the impossible.
 */
export const Bounds = {
  /** SQS `DelaySeconds` maximum (SendMessage API reference). */
  maxSqsDelaySeconds: 900,
  maxAttempts: 1000,
  /** Longest single computed delay. Longer waits than one SQS delay travel as hops. */
  maxDelayMs: 12 * 60 * 60 * 1000,
  /** SQS maximum retention: a deadline past this could never be reached. */
  maxDeadlineSeconds: 14 * 24 * 60 * 60,
  maxMultiplier: 100,
  /** Attempt numbers above this in `x-retry` can only be forged or corrupt. */
  maxRecordedAttempt: 100_000,
} as const;
