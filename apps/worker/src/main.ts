import { redactUrlCredentials } from '@requeue/retry/engine';
import { loadWorkerConfig, WorkerConfigError, type WorkerConfig } from './config.js';
import { fail } from './fail.js';
import { startTelemetry, type Telemetry } from './telemetry.js';

/**
 * The configuration is read and checked before the rest of the worker (Nest, Express, the
 * AWS SDK) is loaded: a bad setting exits with its one line in a fraction of the start-up,
 * and the tracing SDK is running before the modules it may instrument are loaded.
 */
async function main(): Promise<void> {
  let config: WorkerConfig;
  let telemetry: Telemetry | undefined;
  try {
    config = loadWorkerConfig(process.env);
    telemetry = await startTelemetry(process.env);
  } catch (error) {
    if (error instanceof WorkerConfigError) fail(error.message);
    throw error;
  }
  const { runWorker } = await import('./run-worker.js');
  await runWorker(config, telemetry);
}

main().catch((error: unknown) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`requeue worker: failed to start: ${redactUrlCredentials(text)}\n`);
  process.exit(1);
});
