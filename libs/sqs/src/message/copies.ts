import {
  DEAD_LETTER_ATTRIBUTE,
  encodeDeadLetterRecord,
  encodePolicyOverride,
  RETRY_POLICY_ATTRIBUTE,
  RETRY_STATE_ATTRIBUTE,
  type DeadLetterRecord,
  type RetryState,
  type RetryStateSigner,
} from '@requeue/retry/engine';
import type { DecodedMessage } from './decode.js';
import { fitsInOneMessage, MAX_MESSAGE_ATTRIBUTES, stringAttribute, type MessageAttributes, type NoRoom } from './message-attributes.js';
import { withTraceAttributes } from '../tracing/carry.js';

/**
 * Attributes of a retry copy: the publisher's own, unchanged, plus the new `x-retry` and
 * a valid `x-retry-policy` (so the override survives every retry), then, room permitting,
 * this attempt's trace context in `traceparent`. Undefined when the
 * copy cannot carry them within SQS limits; the caller then uses the visibility
 * transport, which keeps the original message and so loses nothing.
 */
export function retryCopyAttributes(message: DecodedMessage, state: RetryState, signer: RetryStateSigner, maxBytes: number): MessageAttributes | undefined {
  const attributes: MessageAttributes = {
    ...message.sqsUserAttributes,
    [RETRY_STATE_ATTRIBUTE]: stringAttribute(signer.sign(state, message.digest())),
    ...(message.override ? { [RETRY_POLICY_ATTRIBUTE]: stringAttribute(encodePolicyOverride(message.override)) } : {}),
  };
  return fitsInOneMessage(message.sqsBody, attributes, maxBytes)
    ? withTraceAttributes(message.sqsBody, attributes, message.trace?.carried, maxBytes)
    : undefined;
}

export interface DeadLetterAttributes {
  attributes: MessageAttributes;
  /** Set when `x-dead-letter` did not fit beside the user's attributes: which of SQS's limits left no room. */
  noRoom: NoRoom | undefined;
}

/**
 * Attributes of a dead letter: the publisher's own come first and are never dropped;
 * then `x-dead-letter`, then, room permitting, `x-retry` and `x-retry-policy` so that a
 * replay can keep the message's history, and the trace context.
 */
export function deadLetterAttributes(message: DecodedMessage, record: DeadLetterRecord, signer: RetryStateSigner, maxBytes: number): DeadLetterAttributes {
  let attributes: MessageAttributes = { ...message.sqsUserAttributes };
  const optional: Array<[string, string]> = [
    [DEAD_LETTER_ATTRIBUTE, encodeDeadLetterRecord(record)],
    [RETRY_STATE_ATTRIBUTE, signer.sign(message.state, message.digest())],
  ];
  if (message.override) optional.push([RETRY_POLICY_ATTRIBUTE, encodePolicyOverride(message.override)]);
  for (const [name, value] of optional) {
    const candidate = { ...attributes, [name]: stringAttribute(value) };
    // A spread, not Object.assign: assignment would turn a `__proto__` attribute into a prototype.
    if (fitsInOneMessage(message.sqsBody, candidate, maxBytes)) attributes = candidate;
  }
  const noRoom = DEAD_LETTER_ATTRIBUTE in attributes ? undefined : Object.keys(attributes).length >= MAX_MESSAGE_ATTRIBUTES ? 'attributes' : 'size';
  return { attributes: withTraceAttributes(message.sqsBody, attributes, message.trace?.carried, maxBytes), noRoom };
}
