import { WorkerConfigError } from '@requeue/sqs/env';

/** The OpenTelemetry SDK the worker started, to flush and stop at shutdown. */
export interface Telemetry {
  /** Exports the spans still buffered, then stops the SDK. */
  shutdown(): Promise<void>;
}

const EXPORTERS = new Set(['otlp', 'console', 'none']);
const PROTOCOLS = new Set(['http/protobuf', 'http/json', 'grpc']);

/**
 * Starts the OpenTelemetry Node SDK when the standard variables ask for traces
 * (`OTEL_TRACES_EXPORTER=otlp` or `console`); the SDK itself reads the endpoint, protocol,
 * service name and batch settings (`OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`,
 * `OTEL_BSP_*`). Without them nothing is loaded and the engine's spans cost nothing.
 * Metrics and logs stay with CloudWatch EMF and pino unless their own variables say otherwise.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<Telemetry | undefined> {
  const exporters = listed(env.OTEL_TRACES_EXPORTER);
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || exporters.every((name) => name === 'none')) return undefined;
  for (const name of exporters) {
    if (!EXPORTERS.has(name))
      throw new WorkerConfigError('OTEL_TRACES_EXPORTER', `names an exporter this worker does not ship: ${JSON.stringify(name)}; use otlp, console or none`);
  }
  for (const variable of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = env[variable]?.trim();
    if (protocol && !PROTOCOLS.has(protocol))
      throw new WorkerConfigError(variable, `must be http/protobuf, http/json or grpc, got ${JSON.stringify(protocol)}`);
  }
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK();
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

function listed(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
}
