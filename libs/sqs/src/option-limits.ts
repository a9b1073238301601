/** The range a whole-number option must fall in. */
export interface IntegerRange {
  /** The smallest value allowed. */
  min: number;
  /** The largest value allowed. */
  max: number;
  /** Why the bounds are what they are, appended to the error. */
  why?: string;
}

/** A whole-number option with a fixed default. */
export interface IntegerLimit extends IntegerRange {
  /** The value when the option is not given. */
  default: number;
}

/**
 * Every whole-number option's default and range, written once: `SqsWorker` validates its
 * options against them and the environment's WORKER_* settings read through them, so the
 * two can never disagree. `prefetch` and `pollers` have no fixed
 * default: theirs follow from `maxInFlight`.
 */
export const OPTION_LIMITS = {
  maxInFlight: { default: 50, min: 1, max: 10_000 },
  prefetch: { min: 0, max: 10_000 },
  // SQS limits: long polls wait 0-20 s, a receive returns 1-10 messages, a message stays
  // invisible for at most 12 h.
  waitTimeSeconds: { default: 20, min: 0, max: 20, why: ' (the SQS long-poll maximum is 20)' },
  receiveBatchSize: { default: 10, min: 1, max: 10, why: ' (SQS returns at most 10 per receive)' },
  handlerTimeoutMs: { default: 300_000, min: 1, max: 43_200_000, why: ' (12 h, the SQS visibility maximum)' },
  visibilityTimeoutSeconds: { default: 30, min: 1, max: 43_200, why: ' (12 h, the SQS maximum)' },
  maxReceiveCount: { default: 5, min: 1, max: 1000 },
  fifoRetryInPlaceSeconds: { default: 0, min: 0, max: 43_200 },
  batchWaitMs: { default: 10, min: 0, max: 10_000 },
  batchSize: { default: 10, min: 1, max: 1000 },
  batchWindowMs: { default: 50, min: 0, max: 60_000 },
  drainTimeoutMs: { default: 30_000, min: 0, max: 3_600_000 },
  pollers: { min: 1, max: 100 },
  pollBackoffInitialMs: { default: 200, min: 1, max: 60_000 },
  pollBackoffMaxMs: { default: 20_000, min: 1, max: 600_000 },
  metricsFlushIntervalMs: { default: 60_000, min: 100, max: 3_600_000 },
  storeTimeoutMs: { default: 2000, min: 10, max: 60_000 },
} as const satisfies Record<string, IntegerLimit | IntegerRange>;
