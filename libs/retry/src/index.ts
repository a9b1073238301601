/**
 * Retry policies for message handlers: per-error-type backoff with jitter, attempt and
 * deadline budgets, and the classification of what a handler throws. Transport-free:
 * `@requeue/sqs` runs these policies on SQS.
 *
 * @example
 * ```ts
 * import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
 *
 * const retryPolicy = createRetryPolicy({ maxAttempts: 6, deadlineSeconds: 3600 });
 * async function handler() {
 *   const response = await fetch(url);
 *   if (response.status === 429) throw new RetryableError('rate limited', { errorType: 'RATE_LIMITED', retryAfterMs: 30_000 });
 *   if (response.status === 400) throw new NonRetryableError('rejected');
 * }
 * ```
 *
 * @packageDocumentation
 */
export {
  classifyFailure,
  DEFAULT_CODE_BUG_ERRORS,
  type Classification,
  type ClassifierOptions,
  type ClassifierRule,
  type FailureScope,
  type NonRetryableFailure,
  type RetryableFailure,
} from './classify.js';
export { createRetryPolicy } from './decide.js';
export type { RetryPolicy } from './engine-policy.js';
export { ErrorType, type DeadLetterReason } from './error-types.js';
export {
  ConfigError,
  InvalidRetryStateError,
  NonRetryableError,
  RetryableError,
  RetryPolicyConfigError,
  UnrecoverableError,
  type NonRetryableErrorOptions,
  type RetryableErrorOptions,
} from './errors.js';
export { parseRetryPolicyJson } from './policy-config.js';
export type {
  BackoffInput,
  CustomBackoff,
  CustomBackoffContext,
  ErrorTypePolicyInput,
  JitterInput,
  JsonBackoff,
  PolicyOverrideInput,
  RetryPolicyFields,
  RetryPolicyInput,
  RetryPolicyJson,
} from './policy-types.js';
export { parseRetryAfter } from './retry-after.js';
