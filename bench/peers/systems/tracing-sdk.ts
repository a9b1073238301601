/**
 * Preloaded (`node --import`) into the worker for the bench's "tracing on" rows: the
 * OpenTelemetry Node SDK as the worker app starts it, with its batch span processor
 * exporting to memory instead of a collector, so the row measures making and batching
 * spans, not a network. The exporter drops what it holds once that passes 512 spans, as
 * a real exporter lets go of what it has sent, so memory stays flat over a run.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

const KEEP = 512;

class BoundedMemoryExporter extends InMemorySpanExporter {
  override export(spans: ReadableSpan[], resultCallback: Parameters<InMemorySpanExporter['export']>[1]): void {
    if (this.getFinishedSpans().length > KEEP) this.reset();
    super.export(spans, resultCallback);
  }
}

process.env.OTEL_METRICS_EXPORTER ??= 'none';
process.env.OTEL_LOGS_EXPORTER ??= 'none';
const sdk = new NodeSDK({ traceExporter: new BoundedMemoryExporter() });
sdk.start();
process.once('SIGTERM', () => void sdk.shutdown());
