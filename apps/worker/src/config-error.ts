import { ConfigError } from '@requeue/retry';

/**
 * One configuration problem, reported as one line naming the variable. Its own module,
 * so that the setting readers and `config.ts` import it without importing each other.
 */
export class WorkerConfigError extends ConfigError {
  constructor(
    readonly variable: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(variable, problem, options);
    this.name = 'WorkerConfigError';
  }
}
