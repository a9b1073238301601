import { Duration, Token, Tokenization } from 'aws-cdk-lib';
import { createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicyJson } from '@requeue/retry';
import { InfraConfigError } from './errors.js';
import type { QueueWorkerServiceProps } from './queue-worker-service-props.js';
import { wholeNumber } from './validation.js';

/** Fargate waits at most this long between SIGTERM and SIGKILL. */
const FARGATE_MAX_STOP_TIMEOUT_SECONDS = 120;
/** Time between the end of the worker's drain and SIGKILL: releasing leftovers, flushing logs. */
const STOP_MARGIN_SECONDS = 15;
/** The worker's own default for METRICS_NAMESPACE. */
export const DEFAULT_METRICS_NAMESPACE = 'requeue';

/** The props the settings come from; each is documented, with its default, on `QueueWorkerServiceProps`. */
export type WorkerSettingsProps = Pick<
  QueueWorkerServiceProps,
  | 'handler'
  | 'batch'
  | 'retryPolicy'
  | 'metricsNamespace'
  | 'maxInFlight'
  | 'drainTimeout'
  | 'cpu'
  | 'memoryLimitMiB'
  | 'minCapacity'
  | 'maxCapacity'
  | 'backlogPerTask'
  | 'spot'
>;

/** `QueueWorkerService`'s props, validated and with their defaults. Numbers may be tokens. */
export interface Settings {
  cpu: number;
  memoryLimitMiB: number;
  handler: string | undefined;
  retryPolicy: RetryPolicyJson;
  metricsNamespace: string;
  maxInFlight: number;
  drainTimeout: Duration;
  stopTimeout: Duration;
  minCapacity: number;
  maxCapacity: number;
  backlogPerTask: number;
  /** WORKER_BATCH_SIZE and WORKER_BATCH_WINDOW_MS, each only when set. */
  batchEnvironment: Record<string, string>;
}

export function resolveSettings(props: WorkerSettingsProps): Settings {
  const handler = props.handler;
  if (handler !== undefined && !Token.isUnresolved(handler) && !/^[A-Za-z][\w-]{0,63}$/.test(handler)) {
    throw new InfraConfigError('handler', `is not a handler name: ${JSON.stringify(handler)}`);
  }
  const retryPolicy = validRetryPolicy(props.retryPolicy ?? {});
  const metricsNamespace = validMetricsNamespace(props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE);
  // On Spot the whole warning is the stop timeout, and the drain takes all of it but the margin.
  const drainTimeout = props.drainTimeout ?? Duration.seconds(props.spot ? FARGATE_MAX_STOP_TIMEOUT_SECONDS - STOP_MARGIN_SECONDS : 30);
  const minCapacity = wholeNumber('minCapacity', props.minCapacity ?? 1, 0, 1000);
  // Checked with or without Spot: the drain must end the margin before SIGKILL.
  const stopTimeout = stopTimeoutAfter(drainTimeout);
  const maxInFlight = wholeNumber('maxInFlight', props.maxInFlight ?? 10, 1, 1000);
  return {
    cpu: wholeNumber('cpu', props.cpu ?? 256, 256, 16_384),
    memoryLimitMiB: wholeNumber('memoryLimitMiB', props.memoryLimitMiB ?? 512, 512, 122_880),
    handler,
    retryPolicy,
    metricsNamespace,
    maxInFlight,
    drainTimeout,
    stopTimeout: props.spot ? Duration.seconds(FARGATE_MAX_STOP_TIMEOUT_SECONDS) : stopTimeout,
    minCapacity,
    maxCapacity: wholeNumber('maxCapacity', props.maxCapacity ?? 10, Token.isUnresolved(minCapacity) ? 1 : Math.max(1, minCapacity), 1000),
    // The target-tracking policy takes it as it is, a token too.
    backlogPerTask: wholeNumber('backlogPerTask', props.backlogPerTask ?? 100, 1, 1_000_000),
    batchEnvironment: batchEnvironment(props.batch, maxInFlight),
  };
}

/** The batch's size, checked against the handler slots that must hold it, and its window, as the worker reads them. */
function batchEnvironment(batch: WorkerSettingsProps['batch'], maxInFlight: number): Record<string, string> {
  const environment: Record<string, string> = {};
  if (batch?.size !== undefined) {
    const size = wholeNumber('batch.size', batch.size, 1, 1000);
    if (!Token.isUnresolved(size) && !Token.isUnresolved(maxInFlight) && size > maxInFlight)
      throw new InfraConfigError('batch.size', `must be at most maxInFlight (${maxInFlight}): each message of a batch holds a handler slot, got ${size}`);
    environment.WORKER_BATCH_SIZE = Tokenization.stringifyNumber(size);
  }
  if (batch?.window !== undefined) environment.WORKER_BATCH_WINDOW_MS = String(wholeNumber('batch.window', batch.window.toMilliseconds(), 0, 60_000));
  return environment;
}

/** `METRICS_NAMESPACE` as CloudWatch takes it. */
export function validMetricsNamespace(metricsNamespace: string): string {
  if (!Token.isUnresolved(metricsNamespace) && (!/^[\w.\-/#:]{1,255}$/.test(metricsNamespace) || metricsNamespace.startsWith('AWS/'))) {
    throw new InfraConfigError(
      'metricsNamespace',
      `must be 1-255 of letters, digits and . - _ / # : and not start with AWS/, got ${JSON.stringify(metricsNamespace)}`,
    );
  }
  return metricsNamespace;
}

/** `RETRY_POLICY` as the worker would parse it: a bad one fails the synth, not the first message. */
export function validRetryPolicy(retryPolicy: RetryPolicyJson): RetryPolicyJson {
  try {
    createRetryPolicy(parseRetryPolicyJson(retryPolicy));
    return retryPolicy;
  } catch (cause) {
    if (cause instanceof RetryPolicyConfigError) throw new InfraConfigError('retryPolicy', cause.message, { cause });
    throw cause;
  }
}

/** The container's stop timeout: the drain plus a margin, within Fargate's limit. */
function stopTimeoutAfter(drainTimeout: Duration): Duration {
  const drainSeconds = concrete(
    'drainTimeout',
    drainTimeout.toSeconds(),
    "the container's stop timeout is computed from it at synth",
    0,
    FARGATE_MAX_STOP_TIMEOUT_SECONDS,
  );
  const stopSeconds = drainSeconds + STOP_MARGIN_SECONDS;
  if (stopSeconds > FARGATE_MAX_STOP_TIMEOUT_SECONDS) {
    throw new InfraConfigError(
      'drainTimeout',
      `must be at most ${FARGATE_MAX_STOP_TIMEOUT_SECONDS - STOP_MARGIN_SECONDS} s: ` +
        `Fargate kills a task ${FARGATE_MAX_STOP_TIMEOUT_SECONDS} s after SIGTERM, got ${drainSeconds} s`,
    );
  }
  return Duration.seconds(stopSeconds);
}

/** A whole number the construct computes with at synth, so a token cannot stand for it. */
function concrete(prop: string, value: number, why: string, min: number, max: number): number {
  if (Token.isUnresolved(value)) throw new InfraConfigError(prop, `must be a concrete number, not a token (${why})`);
  return wholeNumber(prop, value, min, max);
}
