/**
 * The OpenTelemetry Node SDK as the worker app starts it, for the bench's tracing rows,
 * with its batch span processor exporting to memory instead of a collector, so a row
 * measures making and batching spans, not a network. The exporter drops what it holds
 * once that passes 512 spans, as a real exporter lets go of what it has sent, so memory
 * stays flat over a run.
 */
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

const KEEP = 512;

class BoundedMemoryExporter extends InMemorySpanExporter {
  override export(spans: ReadableSpan[], resultCallback: Parameters<InMemorySpanExporter['export']>[1]): void {
    if (this.getFinishedSpans().length > KEEP) this.reset();
    super.export(spans, resultCallback);
  }
}

/** Starts the SDK (with `config` over the bench's exporter) and stops it at SIGTERM. */
export function startBenchSdk(config: Partial<NodeSDKConfiguration> = {}): void {
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({ traceExporter: new BoundedMemoryExporter(), ...config });
  sdk.start();
  process.once('SIGTERM', () => void sdk.shutdown());
}
