import type { Attributes, SpanContext, SpanOptions, Tracer } from '@opentelemetry/api';
import type { OpenTelemetry, TracerProviderLike } from './otel-api.js';
import { ProcessTrace } from './process-trace.js';

/** What the process span says about a delivery. */
export interface DeliveryFacts {
  messageId: string;
  originalMessageId: string;
  attempt: number;
  groupId: string | undefined;
  incoming: SpanContext | undefined;
}

const TRACER_NAME = '@requeue/sqs';

/**
 * Starts a CONSUMER span per delivery, named `process <queue>`, with the OpenTelemetry
 * messaging attributes. Its parent is the context the message brought (the publisher's
 * span, or the previous attempt's), also added as a link, as the messaging conventions
 * ask for a creation context. With no SDK registered the global provider is a no-op, and
 * this costs a span object per delivery.
 */
export class MessageTracer {
  private readonly tracer: Tracer;
  private readonly spanName: string;
  private readonly consumer: SpanOptions;

  constructor(
    private readonly api: OpenTelemetry,
    private readonly queueName: string,
    private readonly queueUrl: string,
    provider: TracerProviderLike = api.trace.getTracerProvider(),
  ) {
    this.tracer = provider.getTracer(TRACER_NAME) as Tracer;
    this.spanName = `process ${queueName}`;
    this.consumer = { kind: api.SpanKind.CONSUMER };
  }

  start(delivery: DeliveryFacts): ProcessTrace {
    const { incoming } = delivery;
    const { trace, ROOT_CONTEXT } = this.api;
    const span = incoming
      ? this.tracer.startSpan(this.spanName, { kind: this.consumer.kind, links: [{ context: incoming }] }, trace.setSpanContext(ROOT_CONTEXT, incoming))
      : this.tracer.startSpan(this.spanName, this.consumer, ROOT_CONTEXT);
    // Set after the start, so that with no SDK (a span that records nothing) they are never built.
    if (span.isRecording()) span.setAttributes(this.attributesOf(delivery));
    return new ProcessTrace(span, this.api);
  }

  /**
   * A batch handler's call, in a span of its own (`process <queue>` with
   * `messaging.batch.message_count`), linked to each message's process span.
   */
  async runBatch<T>(links: readonly SpanContext[], count: number, work: () => Promise<T>): Promise<T> {
    const { context, trace, ROOT_CONTEXT, SpanStatusCode } = this.api;
    const span = this.tracer.startSpan(this.spanName, { kind: this.consumer.kind, links: links.map((link) => ({ context: link })) }, ROOT_CONTEXT);
    if (span.isRecording())
      span.setAttributes({ 'messaging.system': 'aws_sqs', 'messaging.destination.name': this.queueName, 'messaging.batch.message_count': count });
    try {
      return await context.with(trace.setSpan(ROOT_CONTEXT, span), work);
    } catch (error) {
      // The name only: each message's span records the classified, redacted failure.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'thrown' });
      throw error;
    } finally {
      span.end();
    }
  }

  private attributesOf(delivery: DeliveryFacts): Attributes {
    const attributes: Attributes = {
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': this.queueName,
      'aws.sqs.queue.url': this.queueUrl,
      'messaging.message.id': delivery.messageId,
      'requeue.original_message_id': delivery.originalMessageId,
      'requeue.attempt': delivery.attempt,
    };
    if (delivery.groupId !== undefined) attributes['requeue.message_group_id'] = delivery.groupId;
    return attributes;
  }
}
