import type { Span, Tracer } from '@opentelemetry/api';
import { otel, type OpenTelemetry, type TracerProviderLike } from '../tracing/otel-api.js';
import { formatAwsTraceHeader, formatTraceparent, TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from '../tracing/trace-header.js';
import { messageBytes, type MessageAttributes } from '../message/message-attributes.js';
import { MAX_PUBLISHER_ATTRIBUTES, type Destination, type EncodedMessage } from './outgoing.js';

/** A send or publish as its PRODUCER span describes it. */
export interface SendOperation {
  to: Destination;
  /** The queue URL or topic ARN. */
  address: string;
  count: number;
}

/**
 * A PRODUCER span, `send <queue or topic>`, around one send or publish call, a child of
 * the caller's active span. Its context goes into each message: `traceparent` (and
 * `tracestate`) where the message brings none of its own and has room within its
 * attributes, and, to a queue, the `AWSTraceHeader` system attribute. With no SDK
 * registered nothing is recorded, and a caller's active context still travels.
 */
export class PublishTracer {
  private readonly tracing: { api: OpenTelemetry; tracer: Tracer } | undefined;

  /** Without `@opentelemetry/api` installed there is nothing to trace with: sends go untraced. */
  constructor(tracing: false | { tracerProvider?: TracerProviderLike } | undefined, api: OpenTelemetry | undefined = otel) {
    const provider = tracing === false || !api ? undefined : (tracing?.tracerProvider ?? api.trace.getTracerProvider());
    this.tracing = provider && api ? { api, tracer: provider.getTracer('@requeue/sqs') as Tracer } : undefined;
  }

  async around<T>(operation: SendOperation, messages: EncodedMessage[], send: () => Promise<T>): Promise<T> {
    if (!this.tracing) return send();
    const { api } = this.tracing;
    const span = this.start(operation, this.tracing);
    inject(span, operation.to, messages, api);
    try {
      return await api.context.with(api.trace.setSpan(api.context.active(), span), send);
    } catch (error) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  private start({ to, address, count }: SendOperation, { api, tracer }: { api: OpenTelemetry; tracer: Tracer }): Span {
    const name = to.kind === 'queue' ? (address.split('/').pop() ?? address) : (address.split(':').pop() ?? address);
    return tracer.startSpan(`send ${name}`, {
      kind: api.SpanKind.PRODUCER,
      attributes: {
        'messaging.system': to.kind === 'queue' ? 'aws_sqs' : 'aws.sns',
        'messaging.operation.type': 'send',
        'messaging.operation.name': to.kind === 'queue' ? 'send' : 'publish',
        'messaging.destination.name': name,
        ...(count > 1 ? { 'messaging.batch.message_count': count } : {}),
      },
    });
  }
}

function inject(span: Span, to: Destination, messages: EncodedMessage[], api: OpenTelemetry): void {
  const spanContext = span.spanContext();
  if (!api.isSpanContextValid(spanContext)) return;
  const traceparent = formatTraceparent(spanContext);
  const tracestate = spanContext.traceState?.serialize();
  for (const message of messages) {
    const { attributes } = message;
    if (to.kind === 'queue') message.traceHeader = formatAwsTraceHeader(spanContext);
    if (TRACEPARENT_ATTRIBUTE in attributes) continue;
    const room = MAX_PUBLISHER_ATTRIBUTES - Object.keys(attributes).length;
    const added: MessageAttributes = {};
    if (room >= 1) added[TRACEPARENT_ATTRIBUTE] = { DataType: 'String', StringValue: traceparent };
    if (tracestate && room >= 2 && !(TRACESTATE_ATTRIBUTE in attributes)) added[TRACESTATE_ATTRIBUTE] = { DataType: 'String', StringValue: tracestate };
    // The context never costs a message its place: one at the size limit goes without it.
    const bytes = messageBytes(message.body, { ...attributes, ...added });
    if (bytes > to.messageMaxBytes) continue;
    Object.assign(attributes, added);
    message.bytes = bytes;
  }
}
