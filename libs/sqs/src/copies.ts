import { DEAD_LETTER_ATTRIBUTE, encodeDeadLetterRecord, encodePolicyOverride, RETRY_POLICY_ATTRIBUTE, RETRY_STATE_ATTRIBUTE, type DeadLetterRecord, type RetryState, type RetryStateSigner } from '@requeue/retry/engine';
import type { DecodedMessage } from './decode.js';
import { fitsInOneMessage, stringAttribute, type MessageAttributes } from './message-attributes.js';
import { withTraceAttributes } from './tracing/carry.js';

/**
 * Attributes of a retry copy: the publisher's own, unchanged, plus the new `x-retry` and
 * a valid `x-retry-policy` (so the override survives every retry), then, room permitting,
 * this attempt's trace context in `traceparent`. Undefined when the
 * copy cannot carry them within SQS limits; the caller then uses the visibility
 * transport, which keeps the original message and so loses nothing.
 */
export function retryCopyAttributes(message: DecodedMessage, state: RetryState, signer: RetryStateSigner): MessageAttributes | undefined {
  const attributes: MessageAttributes = {
    ...message.sqsUserAttributes,
    [RETRY_STATE_ATTRIBUTE]: stringAttribute(signer.sign(state)),
    ...(message.override ? { [RETRY_POLICY_ATTRIBUTE]: stringAttribute(encodePolicyOverride(message.override)) } : {}),
  };
  return fitsInOneMessage(message.sqsBody, attributes) ? withTraceAttributes(message.sqsBody, attributes, message.trace?.carried) : undefined;
}

export interface DeadLetterAttributes {
  attributes: MessageAttributes;
  /** False when even `x-dead-letter` did not fit beside the user's attributes. */
  carriesRecord: boolean;
}

/**
 * Attributes of a dead letter: the publisher's own come first and are never dropped;
 * then `x-dead-letter`, then, room permitting, `x-retry` and `x-retry-policy` so that a
 * replay can keep the message's history, and the trace context.
 */
export function deadLetterAttributes(message: DecodedMessage, record: DeadLetterRecord, signer: RetryStateSigner): DeadLetterAttributes {
  let attributes: MessageAttributes = { ...message.sqsUserAttributes };
  const optional: Array<[string, string]> = [
    [DEAD_LETTER_ATTRIBUTE, encodeDeadLetterRecord(record)],
    [RETRY_STATE_ATTRIBUTE, signer.sign(message.state)],
  ];
  if (message.override) optional.push([RETRY_POLICY_ATTRIBUTE, encodePolicyOverride(message.override)]);
  for (const [name, value] of optional) {
    const candidate = { ...attributes, [name]: stringAttribute(value) };
    // A spread, not Object.assign: assignment would turn a `__proto__` attribute into a prototype.
    if (fitsInOneMessage(message.sqsBody, candidate)) attributes = candidate;
  }
  return { attributes: withTraceAttributes(message.sqsBody, attributes, message.trace?.carried), carriesRecord: DEAD_LETTER_ATTRIBUTE in attributes };
}
