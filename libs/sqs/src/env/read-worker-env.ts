import { createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicy } from '@requeue/retry';
import { DEFAULT_BREAKER, type BackpressureOptions } from '../backpressure/options.js';
import { WorkerConfigError } from './config-error.js';
import { idempotencySetting, type IdempotencySetting } from './idempotency-setting.js';
import { readJsonSetting } from './json-setting.js';
import { fraction, integer, onOff, optionalInteger, url, type Env } from './readers.js';
import { retryStateKeys } from './retry-state-keys.js';
import { storeLocation, type StoreLocation } from './store-location.js';
import { SqsWorkerConfigError } from '../errors.js';
import { OPTION_LIMITS as LIMITS } from '../option-limits.js';
import { resolveTenants, type TenantOptions } from '../tenants/options.js';
import type { TenantKey } from '../tenants/tenant-key.js';

/**
 * The worker's settings as its environment gives them (docs/contracts.md, section 2),
 * validated and with no connection made yet.
 */
export interface WorkerEnvSettings {
  /** WORKER_QUEUE_URL; undefined when unset. */
  queueUrl: string | undefined;
  /** WORKER_DLQ_URL; undefined when unset. */
  deadLetterQueueUrl: string | undefined;
  /** WORKER_HANDLER: the `@SqsHandler` name to run; undefined when unset. */
  handlerName: string | undefined;
  /** RETRY_POLICY, merged over the shipped preset. */
  retryPolicy: RetryPolicy;
  /** Where the policy came from, for the start-up log: `shipped preset`, inline JSON, or the file. */
  retryPolicySource: string;
  /** WORKER_MAX_IN_FLIGHT. */
  maxInFlight: number;
  /** WORKER_PREFETCH; undefined for the engine's default. */
  prefetch: number | undefined;
  /** WORKER_FIFO_RETRY_IN_PLACE_SECONDS; undefined for the engine's default. */
  fifoRetryInPlaceSeconds: number | undefined;
  /** WORKER_WAIT_TIME_SECONDS. */
  waitTimeSeconds: number;
  /** WORKER_RECEIVE_BATCH_SIZE. */
  receiveBatchSize: number;
  /** WORKER_HANDLER_TIMEOUT_MS. */
  handlerTimeoutMs: number;
  /** WORKER_DRAIN_TIMEOUT_MS. */
  drainTimeoutMs: number;
  /** WORKER_BATCH_SIZE: messages per call of a batch handler; undefined for its own default. */
  batchSize: number | undefined;
  /** WORKER_BATCH_WINDOW_MS: how long a batch waits for more; undefined for its own default. */
  batchWindowMs: number | undefined;
  /** WORKER_VISIBILITY_TIMEOUT_SECONDS; undefined: read from the queue. */
  visibilityTimeoutSeconds: number | undefined;
  /** WORKER_TRACING. */
  tracing: boolean;
  /**
   * WORKER_TASK_PROTECTION and WORKER_TASK_PROTECTION_IDLE_MS: ECS scale-in protection while
   * busy (it needs ECS_AGENT_URI, which ECS sets); `false` when off.
   */
  taskProtection: false | { idleMs?: number };
  /** WORKER_BACKPRESSURE and the WORKER_BREAKER_* settings; `false` when off. */
  backpressure: BackpressureOptions | false;
  /** WORKER_FLEET_STATE; undefined when each worker keeps its own. */
  fleetState: StoreLocation | undefined;
  /** WORKER_IDEMPOTENCY, WORKER_IDEMPOTENCY_KEY and WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD. */
  idempotency: IdempotencySetting;
  /** WORKER_TENANT_KEY, WORKER_TENANT_MAX_IN_FLIGHT and WORKER_TENANT_PREFETCH; undefined when tenants are off. */
  tenants: TenantOptions | undefined;
  /** METRICS_NAMESPACE; undefined when unset (no EMF metrics are written). */
  metricsNamespace: string | undefined;
  /** WORKER_RETRY_STATE_KEYS; undefined outside production when unset. */
  retryStateKeys: readonly string[] | undefined;
  /** NODE_ENV=production. */
  production: boolean;
}

function metricsNamespace(env: Env): string | undefined {
  const namespace = env.METRICS_NAMESPACE?.trim();
  if (!namespace) return undefined;
  // CloudWatch's rule for namespaces; "AWS/" is reserved for AWS services.
  if (!/^[\w.\-/#:]{1,255}$/.test(namespace) || namespace.startsWith('AWS/')) {
    throw new WorkerConfigError(
      'METRICS_NAMESPACE',
      `must be 1-255 of letters, digits and . - _ / # : and not start with AWS/, got ${JSON.stringify(namespace)}`,
    );
  }
  return namespace;
}

function backpressure(env: Env): BackpressureOptions | false {
  if (!onOff(env, 'WORKER_BACKPRESSURE', 'on')) return false;
  const cooldownMs = integer(env, 'WORKER_BREAKER_COOLDOWN_MS', { min: 10, max: 3_600_000 }, DEFAULT_BREAKER.cooldownMs);
  const maxCooldownMs = integer(
    env,
    'WORKER_BREAKER_MAX_COOLDOWN_MS',
    { min: cooldownMs, max: 3_600_000, why: ' and at least WORKER_BREAKER_COOLDOWN_MS' },
    Math.max(cooldownMs, DEFAULT_BREAKER.maxCooldownMs),
  );
  return {
    breaker: onOff(env, 'WORKER_BREAKER', 'on') && {
      failureRate: fraction(env, 'WORKER_BREAKER_FAILURE_RATE', DEFAULT_BREAKER.failureRate),
      minimumRequests: integer(env, 'WORKER_BREAKER_MIN_REQUESTS', { min: 1, max: 100_000 }, DEFAULT_BREAKER.minimumRequests),
      windowMs: integer(env, 'WORKER_BREAKER_WINDOW_MS', { min: 100, max: 3_600_000 }, DEFAULT_BREAKER.windowMs),
      cooldownMs,
      maxCooldownMs,
    },
    adaptiveConcurrency: onOff(env, 'WORKER_ADAPTIVE_CONCURRENCY', 'on'),
  };
}

function taskProtection(env: Env): WorkerEnvSettings['taskProtection'] {
  if (!onOff(env, 'WORKER_TASK_PROTECTION', 'on')) return false;
  const idleMs = optionalInteger(env, 'WORKER_TASK_PROTECTION_IDLE_MS', { min: 0, max: 3_600_000 });
  return idleMs === undefined ? {} : { idleMs };
}

/** WORKER_FLEET_STATE: `off`, `redis://host:port` or `dynamodb:<table>`; it shares backpressure, so it needs it on. */
function fleetState(env: Env): StoreLocation | undefined {
  const raw = env.WORKER_FLEET_STATE?.trim() || 'off';
  if (raw === 'off') return undefined;
  if (!onOff(env, 'WORKER_BACKPRESSURE', 'on'))
    throw new WorkerConfigError(
      'WORKER_FLEET_STATE',
      'shares backpressure across the fleet, but WORKER_BACKPRESSURE is off: turn it on or set WORKER_FLEET_STATE=off',
    );
  return storeLocation('WORKER_FLEET_STATE', raw);
}

/**
 * WORKER_TENANT_KEY (`off`, `group`, `attribute.<name>`, `body.<path>`),
 * WORKER_TENANT_MAX_IN_FLIGHT (a number or a share such as `50%`), WORKER_TENANT_PREFETCH and
 * WORKER_TENANT_VALUES (comma-separated: the tenants with turns of their own).
 */
/** At most WORKER_MAX_IN_FLIGHT: each message of a batch holds a handler slot. */
function batchSize(env: Env): number | undefined {
  const size = optionalInteger(env, 'WORKER_BATCH_SIZE', LIMITS.batchSize);
  const maxInFlight = integer(env, 'WORKER_MAX_IN_FLIGHT', LIMITS.maxInFlight);
  if (size !== undefined && size > maxInFlight)
    throw new WorkerConfigError(
      'WORKER_BATCH_SIZE',
      `must be at most WORKER_MAX_IN_FLIGHT (${maxInFlight}): each message of a batch holds a handler slot, got ${size}`,
    );
  return size;
}

function tenants(env: Env, maxInFlight: number): TenantOptions | undefined {
  const key = env.WORKER_TENANT_KEY?.trim() || 'off';
  const cap = env.WORKER_TENANT_MAX_IN_FLIGHT?.trim() || undefined;
  const prefetch = optionalInteger(env, 'WORKER_TENANT_PREFETCH', { min: 0, max: 100_000 });
  const values = env.WORKER_TENANT_VALUES?.trim() ? env.WORKER_TENANT_VALUES.split(',').map((value) => value.trim()) : undefined;
  if (key === 'off') {
    const orphan =
      cap !== undefined
        ? 'WORKER_TENANT_MAX_IN_FLIGHT'
        : prefetch !== undefined
          ? 'WORKER_TENANT_PREFETCH'
          : values !== undefined
            ? 'WORKER_TENANT_VALUES'
            : undefined;
    if (orphan) throw new WorkerConfigError(orphan, 'needs WORKER_TENANT_KEY, which names where the tenant is read');
    return undefined;
  }
  const options: TenantOptions = {
    key: key as TenantKey,
    ...(cap === undefined ? {} : { maxInFlight: /^\d+$/.test(cap) ? Number(cap) : (cap as `${number}%`) }),
    ...(prefetch === undefined ? {} : { prefetch }),
    ...(values === undefined ? {} : { values }),
  };
  try {
    resolveTenants(options, maxInFlight);
  } catch (cause) {
    if (!(cause instanceof SqsWorkerConfigError)) throw cause;
    const variable =
      { 'tenants.key': 'WORKER_TENANT_KEY', 'tenants.prefetch': 'WORKER_TENANT_PREFETCH', 'tenants.values': 'WORKER_TENANT_VALUES' }[cause.option] ??
      'WORKER_TENANT_MAX_IN_FLIGHT';
    throw new WorkerConfigError(variable, cause.problem, { cause });
  }
  return options;
}

/** RETRY_POLICY is JSON, or a path to a JSON file. */
function retryPolicy(raw: string | undefined): { policy: RetryPolicy; source: string } {
  if (raw === undefined || raw.trim() === '') return { policy: createRetryPolicy(), source: 'shipped preset' };
  const { json, source } = readJsonSetting('RETRY_POLICY', raw);
  try {
    return { policy: createRetryPolicy(parseRetryPolicyJson(json)), source };
  } catch (cause) {
    if (cause instanceof RetryPolicyConfigError) throw new WorkerConfigError('RETRY_POLICY', cause.message, { cause });
    throw cause;
  }
}

/**
 * Reads and validates every engine setting of the environment, throwing one
 * WorkerConfigError naming the first bad variable. Connects to nothing.
 */
export function readWorkerEnv(env: Env = process.env): WorkerEnvSettings {
  const production = env.NODE_ENV === 'production';
  const { policy, source } = retryPolicy(env.RETRY_POLICY);
  return {
    queueUrl: url(env, 'WORKER_QUEUE_URL'),
    deadLetterQueueUrl: url(env, 'WORKER_DLQ_URL'),
    handlerName: env.WORKER_HANDLER?.trim() || undefined,
    retryPolicy: policy,
    retryPolicySource: source,
    maxInFlight: integer(env, 'WORKER_MAX_IN_FLIGHT', LIMITS.maxInFlight),
    prefetch: optionalInteger(env, 'WORKER_PREFETCH', LIMITS.prefetch),
    fifoRetryInPlaceSeconds: optionalInteger(env, 'WORKER_FIFO_RETRY_IN_PLACE_SECONDS', LIMITS.fifoRetryInPlaceSeconds),
    waitTimeSeconds: integer(env, 'WORKER_WAIT_TIME_SECONDS', LIMITS.waitTimeSeconds),
    receiveBatchSize: integer(env, 'WORKER_RECEIVE_BATCH_SIZE', LIMITS.receiveBatchSize),
    handlerTimeoutMs: integer(env, 'WORKER_HANDLER_TIMEOUT_MS', LIMITS.handlerTimeoutMs),
    drainTimeoutMs: integer(env, 'WORKER_DRAIN_TIMEOUT_MS', LIMITS.drainTimeoutMs),
    batchSize: batchSize(env),
    batchWindowMs: optionalInteger(env, 'WORKER_BATCH_WINDOW_MS', LIMITS.batchWindowMs),
    visibilityTimeoutSeconds: optionalInteger(env, 'WORKER_VISIBILITY_TIMEOUT_SECONDS', LIMITS.visibilityTimeoutSeconds),
    tracing: onOff(env, 'WORKER_TRACING', 'on'),
    taskProtection: taskProtection(env),
    backpressure: backpressure(env),
    fleetState: fleetState(env),
    idempotency: idempotencySetting(env),
    tenants: tenants(env, integer(env, 'WORKER_MAX_IN_FLIGHT', LIMITS.maxInFlight)),
    metricsNamespace: metricsNamespace(env),
    retryStateKeys: retryStateKeys(env, production),
    production,
  };
}
