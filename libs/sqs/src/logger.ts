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
