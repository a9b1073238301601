import { ConfigError } from '@requeue/retry';

/** A stack prop out of range. Thrown at synth time, naming the prop, before anything is deployed. */
export class InfraConfigError extends ConfigError {
  constructor(
    /** The prop at fault, e.g. `maxReceiveCount`. */
    readonly prop: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(prop, problem, options);
    this.name = 'InfraConfigError';
  }
}
