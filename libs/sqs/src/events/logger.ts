/** The logging calls the engine makes. A pino logger satisfies it as is. */
export interface WorkerLogger {
  /** Detail a developer turns on. */
  debug(fields: object, message: string): void;
  /** What happened to a message, as expected. */
  info(fields: object, message: string): void;
  /** Something went wrong that the worker handles: a first failure, a failed delete. */
  warn(fields: object, message: string): void;
  /** Something an operator should look at: a dead letter, a message the worker could not settle. */
  error(fields: object, message: string): void;
}

export const silentLogger: WorkerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Where the stores the environment built find the logger to report through. */
const STORE_LOGGER = Symbol('requeue.storeLogger');

/**
 * A logger for stores built before the worker that uses them (WORKER_IDEMPOTENCY,
 * WORKER_FLEET_STATE): it writes to `initial` until the worker built on those options
 * gives it its own logger (`adoptWorkerLogger`), so a store's outage and recovery lines go
 * where the worker's lines go. `mark` tags an option object with it; the tag survives a spread.
 */
export function storeLogger(initial: WorkerLogger): { logger: WorkerLogger; mark<T extends object>(options: T): T } {
  let target = initial;
  const logger: WorkerLogger = {
    debug: (fields, message) => target.debug(fields, message),
    info: (fields, message) => target.info(fields, message),
    warn: (fields, message) => target.warn(fields, message),
    error: (fields, message) => target.error(fields, message),
  };
  const adopt = (worker: WorkerLogger) => (target = worker);
  return { logger, mark: (options) => Object.assign(options, { [STORE_LOGGER]: adopt }) };
}

/** Hands the worker's logger to the stores these option objects came with, if `storeLogger` marked them. */
export function adoptWorkerLogger(logger: WorkerLogger, ...options: unknown[]): void {
  for (const option of options) {
    const adopt = (option as { [STORE_LOGGER]?: (logger: WorkerLogger) => void } | undefined)?.[STORE_LOGGER];
    adopt?.(logger);
  }
}
