import type { SpanContext } from '@opentelemetry/api';
import { fitsInOneMessage, stringAttribute, type MessageAttributes } from '../message/message-attributes.js';
import { formatTraceparent, parseAwsTraceHeader, parseTraceparent, TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from './trace-header.js';

/**
 * The context a delivery continues. In order: the SQS message's `traceparent` (which
 * requeue rewrites on every copy, so it names the latest attempt), the `AWSTraceHeader`
 * system attribute (set by X-Ray-instrumented senders, by SNS active tracing, and by
 * requeue on every copy and dead letter), then a `traceparent` inside an SNS envelope.
 */
export function incomingTraceContext(
  sqsAttributes: MessageAttributes,
  awsTraceHeader: string | undefined,
  publishedAttributes: MessageAttributes,
): SpanContext | undefined {
  return fromTraceparent(sqsAttributes) ?? (awsTraceHeader ? parseAwsTraceHeader(awsTraceHeader) : undefined) ?? fromTraceparent(publishedAttributes);
}

function fromTraceparent(attributes: MessageAttributes): SpanContext | undefined {
  const traceparent = attributes[TRACEPARENT_ATTRIBUTE]?.StringValue;
  return traceparent === undefined ? undefined : parseTraceparent(traceparent, attributes[TRACESTATE_ATTRIBUTE]?.StringValue);
}

/**
 * `attributes` with the trace context written into `traceparent` (and `tracestate`, when
 * the context has one): replaced where the message has them, added where they still fit
 * within SQS's 10 attributes and 1 MiB. They never displace anything: a message with no
 * room carries its context in `AWSTraceHeader` alone, which is outside that budget.
 */
export function withTraceAttributes(body: string, attributes: MessageAttributes, context: SpanContext | undefined, maxBytes?: number): MessageAttributes {
  if (!context) return attributes;
  let carried = attributes;
  const traceState = context.traceState?.serialize();
  const wanted: Array<[string, string]> = [[TRACEPARENT_ATTRIBUTE, formatTraceparent(context)]];
  if (traceState) wanted.push([TRACESTATE_ATTRIBUTE, traceState]);
  for (const [name, value] of wanted) {
    const candidate = { ...carried, [name]: stringAttribute(value) };
    if (fitsInOneMessage(body, candidate, maxBytes)) carried = candidate;
  }
  return carried;
}
