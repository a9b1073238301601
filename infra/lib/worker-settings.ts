import { Duration } from 'aws-cdk-lib';
import { createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicyJson } from '@requeue/retry';
import { InfraConfigError } from './errors.js';

/** Fargate waits at most this long between SIGTERM and SIGKILL. */
const FARGATE_MAX_STOP_TIMEOUT_SECONDS = 120;
/** Time between the end of the worker's drain and SIGKILL: releasing leftovers, flushing logs. */
const STOP_MARGIN_SECONDS = 15;
/** The worker's own default for METRICS_NAMESPACE. */
export const DEFAULT_METRICS_NAMESPACE = 'requeue';

/** The props the settings come from; each is documented, with its default, on `QueueWorkerServiceProps`. */
export interface WorkerSettingsProps {
  readonly handler?: string;
  readonly retryPolicy?: RetryPolicyJson;
  readonly metricsNamespace?: string;
  readonly maxInFlight?: number;
  readonly drainTimeout?: Duration;
  readonly memoryLimitMiB?: number;
  readonly minCapacity?: number;
  readonly maxCapacity?: number;
  readonly backlogPerTask?: number;
}

/** `QueueWorkerService`'s props, validated and with their defaults. */
export interface Settings {
  memoryLimitMiB: number;
  handler: string;
  retryPolicy: RetryPolicyJson;
  metricsNamespace: string;
  maxInFlight: number;
  drainTimeout: Duration;
  stopTimeout: Duration;
  minCapacity: number;
  maxCapacity: number;
  backlogPerTask: number;
}

export function resolveSettings(props: WorkerSettingsProps): Settings {
  const handler = props.handler ?? 'webhook';
  if (!/^[A-Za-z][\w-]{0,63}$/.test(handler)) throw new InfraConfigError('handler', `is not a handler name: ${JSON.stringify(handler)}`);
  const retryPolicy = props.retryPolicy ?? {};
  try {
    createRetryPolicy(parseRetryPolicyJson(retryPolicy));
  } catch (cause) {
    if (cause instanceof RetryPolicyConfigError) throw new InfraConfigError('retryPolicy', cause.message, { cause });
    throw cause;
  }
  const metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
  if (!/^[\w.\-/#:]{1,255}$/.test(metricsNamespace) || metricsNamespace.startsWith('AWS/')) {
    throw new InfraConfigError('metricsNamespace', `must be 1-255 of letters, digits and . - _ / # : and not start with AWS/, got ${JSON.stringify(metricsNamespace)}`);
  }
  const maxInFlight = wholeNumber('maxInFlight', props.maxInFlight ?? 10, 1, 1000);
  const drainTimeout = props.drainTimeout ?? Duration.seconds(30);
  const stopSeconds = drainTimeout.toSeconds() + STOP_MARGIN_SECONDS;
  if (stopSeconds > FARGATE_MAX_STOP_TIMEOUT_SECONDS) {
    throw new InfraConfigError(
      'drainTimeout',
      `must be at most ${FARGATE_MAX_STOP_TIMEOUT_SECONDS - STOP_MARGIN_SECONDS} s: Fargate kills a task ${FARGATE_MAX_STOP_TIMEOUT_SECONDS} s after SIGTERM, got ${drainTimeout.toSeconds()} s`,
    );
  }
  const minCapacity = wholeNumber('minCapacity', props.minCapacity ?? 1, 0, 1000);
  const maxCapacity = wholeNumber('maxCapacity', props.maxCapacity ?? 10, Math.max(1, minCapacity), 1000);
  const backlogPerTask = wholeNumber('backlogPerTask', props.backlogPerTask ?? 100, 4, 1_000_000);
  const memoryLimitMiB = wholeNumber('memoryLimitMiB', props.memoryLimitMiB ?? 512, 512, 122_880);
  return { memoryLimitMiB, handler, retryPolicy, metricsNamespace, maxInFlight, drainTimeout, stopTimeout: Duration.seconds(stopSeconds), minCapacity, maxCapacity, backlogPerTask };
}

function wholeNumber(prop: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new InfraConfigError(prop, `must be a whole number from ${min} to ${max}, got ${value}`);
  return value;
}
