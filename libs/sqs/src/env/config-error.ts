import { ConfigError } from '@requeue/retry';

/**
 * One problem in the worker's environment, reported as one line naming the variable:
 * `WORKER_MAX_IN_FLIGHT: must be a whole number from 1 to 10000, got "lots"`.
 */
export class WorkerConfigError extends ConfigError {
  constructor(
    /** The environment variable at fault. */
    readonly variable: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(variable, problem, options);
    this.name = 'WorkerConfigError';
  }
}
