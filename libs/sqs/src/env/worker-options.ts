import { storeLogger, type WorkerLogger } from '../events/logger.js';
import { EmfMetrics } from '../events/metrics.js';
import type { SqsWorkerOptions } from '../options.js';
import { WorkerConfigError } from './config-error.js';
import { readWorkerEnv, type WorkerEnvSettings } from './read-worker-env.js';
import type { Env } from './readers.js';
import { fleetStateStore, idempotencyStore, type Built } from './stores.js';

/**
 * Options for `SqsWorker` (add `sqs` and `handler`) or `SqsWorkerModule.forRoot` (add
 * `sqs`), as the environment sets them.
 */
export interface WorkerEnvOptions extends Omit<SqsWorkerOptions, 'sqs' | 'handler' | 'batch' | 'schema'> {
  /** WORKER_HANDLER, when set: the `@SqsHandler` name `SqsWorkerModule` runs. */
  handlerName?: string;
  /** WORKER_BATCH_SIZE, when set: a batch handler's `size` (`@SqsBatchHandler`'s, or `batch.size` for your own `SqsWorker`). */
  batchSize?: number;
  /** WORKER_BATCH_WINDOW_MS, when set: a batch handler's `windowMs`. */
  batchWindowMs?: number;
  /**
   * Closes the connections of the stores the environment named (WORKER_IDEMPOTENCY,
   * WORKER_FLEET_STATE), after the worker has stopped. Not enumerable, so spreading the
   * options leaves it behind. The connections never keep a process alive on their own.
   */
  close(): Promise<void>;
}

/** What builds the options beyond the environment. */
export interface WorkerEnvContext {
  /**
   * The worker's logger, also where the stores report an outage. @default none: the
   * stores report through the logger of the worker built on these options (the console until then)
   */
  logger?: WorkerLogger;
}

/**
 * The engine's options from settings `readWorkerEnv` returned: the retry policy, the
 * limits, backpressure, EMF metrics (when METRICS_NAMESPACE is set), and the idempotency
 * and fleet-state stores built on the app's own optional peers (a clear MissingPeerError
 * names any that is missing). Throws a WorkerConfigError when the queue URLs are not set.
 */
export function workerOptions(settings: WorkerEnvSettings, context: WorkerEnvContext = {}): WorkerEnvOptions {
  const { queueUrl, deadLetterQueueUrl } = settings;
  if (!queueUrl)
    throw new WorkerConfigError('WORKER_QUEUE_URL', 'is not set: give the URL of the queue to consume (and WORKER_DLQ_URL, its dead-letter queue)');
  if (!deadLetterQueueUrl) throw new WorkerConfigError('WORKER_DLQ_URL', 'is not set: give the URL of the dead-letter queue (QueueWorkerService sets both)');
  const logger = context.logger;
  const opened: Array<Built<unknown>> = [];
  const open = <T>(built: Built<T>): T => {
    opened.push(built);
    return built.value;
  };
  // Without a logger given here, the stores report through the worker's once it is built.
  const stores = storeLogger(logger ?? console);
  const idempotency = settings.idempotency.store === 'off' ? undefined : stores.mark(open(idempotencyStore(settings.idempotency, stores.logger)));
  const fleet = settings.fleetState && settings.backpressure ? stores.mark({ store: open(fleetStateStore(settings.fleetState, stores.logger)) }) : undefined;
  const options: Omit<WorkerEnvOptions, 'close'> = {
    queueUrl,
    deadLetterQueueUrl,
    retryPolicy: settings.retryPolicy,
    maxInFlight: settings.maxInFlight,
    waitTimeSeconds: settings.waitTimeSeconds,
    receiveBatchSize: settings.receiveBatchSize,
    handlerTimeoutMs: settings.handlerTimeoutMs,
    drainTimeoutMs: settings.drainTimeoutMs,
    backpressure: settings.backpressure && fleet ? { ...settings.backpressure, fleet } : settings.backpressure,
    ...defined({
      handlerName: settings.handlerName,
      batchSize: settings.batchSize,
      batchWindowMs: settings.batchWindowMs,
      prefetch: settings.prefetch,
      fifoRetryInPlaceSeconds: settings.fifoRetryInPlaceSeconds,
      visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds,
      retryStateKeys: settings.retryStateKeys,
      tracing: settings.tracing ? undefined : (false as const),
      taskProtection: settings.taskProtection === false || settings.taskProtection.idleMs !== undefined ? settings.taskProtection : undefined,
      idempotency,
      tenants: settings.tenants,
      logger,
      metrics:
        settings.metricsNamespace === undefined
          ? undefined
          : new EmfMetrics({ namespace: settings.metricsNamespace, queueName: queueUrl.split('/').pop() ?? 'queue' }),
    }),
  };
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= Promise.all(opened.map((built) => built.close())).then(() => undefined));
  return Object.defineProperty(options, 'close', { value: close, enumerable: false }) as WorkerEnvOptions;
}

/**
 * `workerOptions(readWorkerEnv(env))`: what `QueueWorkerService` configures, as options for
 * your own `SqsWorker` or `SqsWorkerModule`. One WorkerConfigError names the first bad
 * variable.
 */
export function workerOptionsFromEnv(env: Env = process.env, context: WorkerEnvContext = {}): WorkerEnvOptions {
  return workerOptions(readWorkerEnv(env), context);
}

/** The entries whose value is defined: the engine's options take no explicit undefined. */
function defined<T extends Record<string, unknown>>(entries: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}
