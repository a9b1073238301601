export {
  classifyFailure,
  DEFAULT_CODE_BUG_ERRORS,
  failureScope,
  type Classification,
  type ClassifierOptions,
  type ClassifierRule,
  type FailureScope,
  type NonRetryableFailure,
  type RetryableFailure,
} from './classify.js';
export { DEAD_LETTER_ATTRIBUTE, encodeDeadLetterRecord, parseDeadLetterRecord, type DeadLetterRecord } from './dead-letter-record.js';
export { createRetryPolicy, type DeadLetterDecision, type Decision, type HopDecision, type RetryDecision, type RetryPolicy } from './decide.js';
export { DEAD_LETTER_REASONS, ErrorType, REDRIVE_BACKSTOP, type DeadLetterReason } from './error-types.js';
export {
  ConfigError,
  InvalidRetryStateError,
  NonRetryableError,
  RetryableError,
  RetryPolicyConfigError,
  UnrecoverableError,
  type NonRetryableErrorOptions,
  type RetryableErrorOptions,
  type RetryAttribute,
} from './errors.js';
export { parseRetryPolicyJson, resolveRetryPolicy, SHIPPED_PRESET, type ErrorTypePolicy, type ResolvedRetryPolicy } from './policy-config.js';
export type {
  Backoff,
  BackoffInput,
  CustomBackoff,
  CustomBackoffContext,
  CustomFunctionBackoff,
  DecorrelatedBackoff,
  ErrorTypePolicyInput,
  ExponentialBackoff,
  FixedBackoff,
  Jitter,
  JitterInput,
  JsonBackoff,
  LinearBackoff,
  NamedCustomBackoff,
  ParsedBuiltInBackoff,
  PolicyOverride,
  PolicyOverrideInput,
  RetryPolicyFields,
  RetryPolicyInput,
  RetryPolicyJson,
} from './policy-types.js';
export { encodePolicyOverride, parsePolicyOverride, RETRY_POLICY_ATTRIBUTE } from './policy-override.js';
export { REDACTED, redactSecrets } from './redact.js';
export { seededRandom, type Random } from './random.js';
export { parseRetryAfter } from './retry-after.js';
export {
  encodeRetryState,
  freshRetryState,
  parseRetryState,
  RETRY_STATE_ATTRIBUTE,
  type RetryState,
} from './retry-state.js';
export { MIN_RETRY_STATE_KEY_LENGTH, RetryStateSigner } from './retry-state-signer.js';
