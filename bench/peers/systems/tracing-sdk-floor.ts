/**
 * Preloaded (`node --import`) into the worker for the bench's "SDK floor" row: the same
 * SDK as the tracing rows, but each span requeue starts is the SDK's span with nothing
 * set on it (no attributes, links, events or status) and no context is ever made
 * active. The row measures what the SDK itself costs per span (ids, sampling, clocks,
 * the batch processor); against the SDK row, what requeue's attributes, links and
 * handler context add.
 */
import {
  ROOT_CONTEXT,
  trace,
  type ContextManager,
  type ProxyTracerProvider,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Context,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { startBenchSdk } from './bench-sdk.js';

/** A context manager that makes nothing active: `with` only calls. */
const nothingActive: ContextManager = {
  active: () => ROOT_CONTEXT,
  with: (_context, fn, thisArg, ...args) => fn.call(thisArg, ...args),
  bind: (_context, target) => target,
  enable() {
    return this;
  },
  disable() {
    return this;
  },
};

/** The SDK's span, started, timed and ended by the SDK, with every setter a no-op. */
class BareSpan implements Span {
  constructor(private readonly span: Span) {}
  spanContext(): SpanContext {
    return this.span.spanContext();
  }
  isRecording(): boolean {
    return this.span.isRecording();
  }
  end(): void {
    this.span.end();
  }
  // Every setter keeps nothing (methods, not per-span closures, so the floor pays for none).
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  recordException(): void {}
}

class BareTracer implements Tracer {
  constructor(private readonly tracer: Tracer) {}
  startSpan(name: string, options?: SpanOptions, context?: Context): Span {
    return new BareSpan(this.tracer.startSpan(name, { kind: options?.kind }, context));
  }
  // requeue's worker starts no active spans; the SDK's own serves any other caller.
  startActiveSpan = ((...args: unknown[]): unknown => Reflect.apply(this.tracer.startActiveSpan, this.tracer, args)) as Tracer['startActiveSpan'];
}

startBenchSdk({ contextManager: nothingActive });
const sdkProvider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
const bareProvider: TracerProvider = { getTracer: (...args) => new BareTracer(sdkProvider.getTracer(...args)) };
trace.disable();
trace.setGlobalTracerProvider(bareProvider);
