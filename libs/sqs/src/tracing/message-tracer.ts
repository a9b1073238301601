import { ROOT_CONTEXT, SpanKind, trace, type Attributes, type Link, type SpanContext, type Tracer, type TracerProvider } from '@opentelemetry/api';
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
 * ask for a creation context. With no SDK registered the global provider is a no-op and
 * so is this.
 */
export class MessageTracer {
  private readonly tracer: Tracer;

  constructor(
    private readonly queueName: string,
    private readonly queueUrl: string,
    provider: TracerProvider = trace.getTracerProvider(),
  ) {
    this.tracer = provider.getTracer(TRACER_NAME);
  }

  start(delivery: DeliveryFacts): ProcessTrace {
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
    const links: Link[] = delivery.incoming ? [{ context: delivery.incoming }] : [];
    const parent = delivery.incoming ? trace.setSpanContext(ROOT_CONTEXT, delivery.incoming) : ROOT_CONTEXT;
    return new ProcessTrace(this.tracer.startSpan(`process ${this.queueName}`, { kind: SpanKind.CONSUMER, attributes, links }, parent));
  }
}
