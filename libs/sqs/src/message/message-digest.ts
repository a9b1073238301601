import { hash } from 'node:crypto';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from '../tracing/trace-header.js';

/** Rewritten on every copy with that attempt's trace context, so not part of what the message is. */
const UNBOUND_ATTRIBUTES: ReadonlySet<string> = new Set([TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE]);

/**
 * What a signed `x-retry` is bound to: a SHA-256 over the SQS body and the publisher's
 * attributes (requeue's own and the trace context aside), which every copy, dead letter
 * and replay carries unchanged. A state moved onto another body, or beside other
 * attributes, no longer verifies.
 */
export function messageDigest(sqsBody: string, publisherAttributes: Readonly<Record<string, MessageAttributeValue>>): string {
  // Most messages carry no attributes of their publisher's: the same text, without the arrays.
  for (const _name in publisherAttributes) return digestWithAttributes(sqsBody, publisherAttributes);
  return hash('sha256', `[${JSON.stringify(sqsBody)},[]]`, 'base64url');
}

function digestWithAttributes(sqsBody: string, publisherAttributes: Readonly<Record<string, MessageAttributeValue>>): string {
  const attributes = Object.entries(publisherAttributes)
    .filter(([name]) => !UNBOUND_ATTRIBUTES.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => [name, value.DataType ?? '', value.StringValue ?? '', value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : '']);
  // The one-shot hash: a quarter of the CPU of a createHash() object for one input.
  return hash('sha256', JSON.stringify([sqsBody, attributes]), 'base64url');
}
