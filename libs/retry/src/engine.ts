/**
 * The engine's side of a retry policy: its decisions, the retry state a message carries,
 * the wire format of requeue's attributes, and the signer that makes `x-retry`
 * trustworthy. For transports (`@requeue/sqs`) and tools that read requeue's attributes;
 * an application needs only the package root.
 *
 * @packageDocumentation
 */
export type * from './index.js';
export { cappedExponentialMs } from './backoff.js';
export { failureScope } from './classify.js';
export { outOfRange, type NumberRange } from './range.js';
export { DEAD_LETTER_ATTRIBUTE, encodeDeadLetterRecord, parseDeadLetterRecord, RESERVED_BYTES, type DeadLetterRecord } from './dead-letter-record.js';
export type { DeadLetterDecision, Decision, HopDecision, RetryDecision } from './decision.js';
export { enginePolicy, type EnginePolicy } from './engine-policy.js';
export { DEAD_LETTER_REASONS, NO_ROOM_FOR_REASON, REDRIVE_BACKSTOP } from './error-types.js';
export { resolveRetryPolicy, SHIPPED_PRESET, type ErrorTypePolicy, type ResolvedRetryPolicy } from './policy-config.js';
export type { Backoff, CustomFunctionBackoff, Jitter, NamedCustomBackoff, ParsedBuiltInBackoff, PolicyOverride } from './policy-types.js';
export { encodePolicyOverride, parsePolicyOverride, RETRY_POLICY_ATTRIBUTE } from './policy-override.js';
export { REDACTED, redactSecrets, redactUrlCredentials } from './redact.js';
export { seededRandom, type Random } from './random.js';
export { encodeRetryState, freshRetryState, parseRetryState, RETRY_STATE_ATTRIBUTE, type RetryState } from './retry-state.js';
export { MIN_RETRY_STATE_KEY_LENGTH, RetryStateSigner } from './retry-state-signer.js';
