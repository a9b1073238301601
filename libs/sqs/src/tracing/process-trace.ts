import type { RetryTransport } from '../events/worker-events.js';
import type { Attributes, Span, SpanContext } from '@opentelemetry/api';
import type { OpenTelemetry } from './otel-api.js';

/** How a delivery left the worker's hands, as its process span records it. */
export type SettleEvent =
  | { kind: 'deleted' }
  | { kind: 'retry'; nextAttempt: number; delaySeconds: number; errorType: string; transport: RetryTransport }
  | { kind: 'deferred'; delaySeconds: number; cause: string; transport: RetryTransport }
  | { kind: 'dead-letter'; reason: string; errorType: string; error: string }
  | { kind: 'released' };

const OUTCOME: Record<SettleEvent['kind'], string> = {
  deleted: 'succeeded',
  retry: 'retried',
  deferred: 'deferred',
  'dead-letter': 'dead-lettered',
  released: 'released',
};

/**
 * One delivery's process span: the handler runs inside it, its failure and its settle
 * step are recorded on it, and `carried` is the context every copy and dead letter of this
 * delivery takes along, so the next attempt continues the same trace.
 */
export class ProcessTrace {
  /** This attempt's span context, for copies and dead letters; without an SDK, the incoming one passed on unchanged. */
  readonly carried: SpanContext | undefined;
  private readonly recording: boolean;

  constructor(
    private readonly span: Span,
    private readonly api: OpenTelemetry,
  ) {
    this.recording = span.isRecording();
    const spanContext = span.spanContext();
    this.carried = api.isSpanContextValid(spanContext) ? spanContext : undefined;
  }

  /**
   * Runs `work` with this span active, so spans the handler starts are its children (a
   * span the sampler dropped too: its children are then dropped alike). With no SDK and
   * no incoming context there is nothing to make active.
   */
  run<T>(work: () => T): T {
    if (!this.carried) return work();
    const { context, trace } = this.api;
    return context.with(trace.setSpan(context.active(), this.span), work);
  }

  /** The handler failed: `error.type` and an exception event with the redacted text. */
  failed(errorType: string, message: string): void {
    if (!this.recording) return;
    this.span.setAttribute('error.type', errorType);
    this.span.addEvent('exception', { 'exception.type': errorType, 'exception.message': message });
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
  }

  settled(event: SettleEvent): void {
    if (!this.recording) return;
    this.span.setAttribute('requeue.outcome', OUTCOME[event.kind]);
    // A success is its outcome and the span's end (just after the delete lands); an event
    // per message would cost the happy path an object each for nothing more.
    if (event.kind === 'deleted') return;
    this.span.addEvent(`requeue.${event.kind}`, eventAttributes(event));
    if (event.kind === 'dead-letter') this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: `dead-lettered: ${event.reason}` });
  }

  end(): void {
    this.span.end();
  }
}

function eventAttributes(event: SettleEvent): Attributes {
  switch (event.kind) {
    case 'retry':
      return {
        'requeue.next_attempt': event.nextAttempt,
        'requeue.delay_seconds': event.delaySeconds,
        'requeue.error_type': event.errorType,
        'requeue.transport': event.transport,
      };
    case 'deferred':
      return { 'requeue.delay_seconds': event.delaySeconds, 'requeue.defer_cause': event.cause, 'requeue.transport': event.transport };
    case 'dead-letter':
      return { 'requeue.reason': event.reason, 'requeue.error_type': event.errorType, 'requeue.error': event.error };
    default:
      return {};
  }
}
