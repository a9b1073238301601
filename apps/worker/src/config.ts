import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicy } from '@requeue/retry';
import { outOfRange } from '@requeue/retry/engine';
import { type BackpressureOptions } from '@requeue/sqs';
import { DEFAULT_BREAKER } from '@requeue/sqs/backpressure';
import { loadConsumers, type ConsumerConfig, type ConsumerDefaults } from './consumers-config.js';
import { idempotencySetting, type IdempotencySetting } from './idempotency-config.js';
import { storeLocation, type StoreLocation } from './store-location.js';
import { readJsonSetting } from './json-setting.js';
import { retryStateKeys } from './retry-state-keys.js';
import { DEFAULT_LOG_REDACT } from './log-redact.js';
import { WorkerConfigError } from './config-error.js';

export { WorkerConfigError };

export interface WorkerConfig {
  /** Queue URLs, or `embedded` to start the local emulator (never in production). With WORKER_CONSUMERS, the first consumer's. */
  queues: { queueUrl: string; dlqUrl: string } | 'embedded';
  /** WORKER_CONSUMERS: several queues in one process; undefined for the single-queue variables. */
  consumers: ConsumerConfig[] | undefined;
  region: string;
  endpoint: string | undefined;
  handler: string;
  maxInFlight: number;
  /** Messages received ahead of the handlers (WORKER_PREFETCH); undefined for the engine's default (maxInFlight; 0 on FIFO). */
  prefetch: number | undefined;
  /** WORKER_FIFO_RETRY_IN_PLACE_SECONDS; undefined for the engine's default (the visibility timeout, at most 60). */
  fifoRetryInPlaceSeconds: number | undefined;
  waitTimeSeconds: number;
  receiveBatchSize: number;
  handlerTimeoutMs: number;
  drainTimeoutMs: number;
  visibilityTimeoutSeconds: number | undefined;
  healthPort: number;
  healthHost: string;
  emulatorPort: number;
  retryPolicy: RetryPolicy;
  retryPolicySource: string;
  /** Process spans and trace propagation (WORKER_TRACING); spans are exported only when OTEL_TRACES_EXPORTER asks. */
  tracing: boolean;
  /** WORKER_IDEMPOTENCY and WORKER_IDEMPOTENCY_KEY: every consumer's handler guarded by this store, or off. */
  idempotency: IdempotencySetting;
  /** Where the fleet's workers share what they learnt about each dependency (WORKER_FLEET_STATE); undefined: each on its own. */
  fleetState: StoreLocation | undefined;
  /** Circuit breaker, adaptive concurrency and rate-limit pauses per dependency; `false` when WORKER_BACKPRESSURE=off. */
  backpressure: BackpressureOptions | false;
  simulationLedger: string | undefined;
  webhookUrl: string | undefined;
  webhookTimeoutMs: number;
  /** Internal hosts (`host` or `host:port`) the webhook handler may call anyway. */
  webhookAllowHosts: string[];
  logLevel: string;
  logRedact: string[];
  metricsNamespace: string;
  /** The local dashboard: on by default outside production, off in production unless WORKER_DASHBOARD=on. */
  dashboard: { enabled: boolean; host: string; port: number; traceUrl: string | undefined };
  production: boolean;
  /** WORKER_RETRY_STATE_KEYS; unset outside production, where the worker keys x-retry with a key of its own. */
  retryStateKeys: readonly string[] | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** The handlers this app registers (src/handlers). An app of your own registers its own with @SqsHandler. */
export const APP_HANDLERS = ['simulation', 'simulation-unchecked', 'webhook'];

/** The ledger is appended to on every success: a path that cannot be written would fail every message. */
function ledgerPath(env: Env): string | undefined {
  const path = env.SIMULATION_LEDGER?.trim();
  if (!path) return undefined;
  try {
    accessSync(dirname(resolve(path)), constants.W_OK);
  } catch (cause) {
    throw new WorkerConfigError('SIMULATION_LEDGER', `its folder ${dirname(resolve(path))} does not exist or is not writable`, { cause });
  }
  return path;
}

function onOff(env: Env, name: string, fallback: 'on' | 'off'): boolean {
  const setting = env[name]?.trim().toLowerCase() || fallback;
  if (setting !== 'on' && setting !== 'off') throw new WorkerConfigError(name, `must be on or off, got ${JSON.stringify(env[name])}`);
  return setting === 'on';
}

function dashboard(env: Env, production: boolean): WorkerConfig['dashboard'] {
  return {
    enabled: onOff(env, 'WORKER_DASHBOARD', production ? 'off' : 'on'),
    // Loopback by default: the page can replay and discard dead letters.
    host: env.WORKER_DASHBOARD_HOST?.trim() || '127.0.0.1',
    port: integer(env, 'WORKER_DASHBOARD_PORT', 8081, 0, 65_535),
    traceUrl: traceUrl(env),
  };
}

/** WORKER_TRACE_URL: where the dashboard links a trace id, e.g. a Jaeger or X-Ray console URL with `{traceId}` in it. */
function traceUrl(env: Env): string | undefined {
  const template = url(env, 'WORKER_TRACE_URL');
  if (template !== undefined && !template.includes('{traceId}')) {
    throw new WorkerConfigError('WORKER_TRACE_URL', `must contain {traceId}, where the trace id goes, got ${JSON.stringify(template)}`);
  }
  return template;
}

function metricsNamespace(env: Env): string {
  const namespace = env.METRICS_NAMESPACE?.trim() || 'requeue';
  // CloudWatch's rule for namespaces; "AWS/" is reserved for AWS services.
  if (!/^[\w.\-/#:]{1,255}$/.test(namespace) || namespace.startsWith('AWS/')) {
    throw new WorkerConfigError('METRICS_NAMESPACE', `must be 1-255 of letters, digits and . - _ / # : and not start with AWS/, got ${JSON.stringify(namespace)}`);
  }
  return namespace;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number, why = ''): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() would also read "1e3", "0x10" and " ".
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  const problem = outOfRange(value, { min, max });
  if (problem) throw new WorkerConfigError(name, `must be a whole number from ${min} to ${max}${why}, got ${JSON.stringify(raw)}`);
  return value as number;
}

/** A whole number from 0 to `max`, or undefined when unset: the engine's default applies. */
function optionalInteger(env: Env, name: string, max: number): number | undefined {
  return env[name] === undefined || env[name] === '' ? undefined : integer(env, name, 0, 0, max);
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\s*(0|1)?(\.\d+)?\s*$/.test(raw) || !Number.isFinite(value) || value <= 0 || value > 1) {
    throw new WorkerConfigError(name, `must be a number above 0 and at most 1, e.g. 0.5, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function backpressure(env: Env): BackpressureOptions | false {
  if (!onOff(env, 'WORKER_BACKPRESSURE', 'on')) return false;
  const cooldownMs = integer(env, 'WORKER_BREAKER_COOLDOWN_MS', DEFAULT_BREAKER.cooldownMs, 10, 3_600_000);
  const maxCooldownMs = integer(env, 'WORKER_BREAKER_MAX_COOLDOWN_MS', Math.max(cooldownMs, DEFAULT_BREAKER.maxCooldownMs), cooldownMs, 3_600_000, ' and at least WORKER_BREAKER_COOLDOWN_MS');
  return {
    breaker: onOff(env, 'WORKER_BREAKER', 'on') && {
      failureRate: fraction(env, 'WORKER_BREAKER_FAILURE_RATE', DEFAULT_BREAKER.failureRate),
      minimumRequests: integer(env, 'WORKER_BREAKER_MIN_REQUESTS', DEFAULT_BREAKER.minimumRequests, 1, 100_000),
      windowMs: integer(env, 'WORKER_BREAKER_WINDOW_MS', DEFAULT_BREAKER.windowMs, 100, 3_600_000),
      cooldownMs,
      maxCooldownMs,
    },
    adaptiveConcurrency: onOff(env, 'WORKER_ADAPTIVE_CONCURRENCY', 'on'),
  };
}

/** WORKER_FLEET_STATE: `off`, `redis://host:port` or `dynamodb:<table>`; it shares backpressure, so it needs it on. */
function fleetState(env: Env): StoreLocation | undefined {
  const raw = env.WORKER_FLEET_STATE?.trim() || 'off';
  if (raw === 'off') return undefined;
  if (!onOff(env, 'WORKER_BACKPRESSURE', 'on')) throw new WorkerConfigError('WORKER_FLEET_STATE', 'shares backpressure across the fleet, but WORKER_BACKPRESSURE is off: turn it on or set WORKER_FLEET_STATE=off');
  return storeLocation('WORKER_FLEET_STATE', raw);
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch (cause) {
    throw new WorkerConfigError(name, `must be an http(s) URL, got ${JSON.stringify(raw)}`, { cause });
  }
  return raw;
}

/**
 * WEBHOOK_ALLOW_HOSTS: internal hosts the webhook handler may call, as `host` or
 * `host:port` (IPv6 in brackets). Everything else internal is refused.
 */
function allowHosts(env: Env): string[] {
  const raw = env.WEBHOOK_ALLOW_HOSTS?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const host = entry.trim().toLowerCase();
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host)) {
      throw new WorkerConfigError('WEBHOOK_ALLOW_HOSTS', `each entry is a host or host:port, got ${JSON.stringify(entry.trim())}`);
    }
    return host;
  });
}

/** RETRY_POLICY is JSON, or a path to a JSON file. */
function retryPolicy(raw: string | undefined): { policy: RetryPolicy; source: string } {
  if (raw === undefined || raw.trim() === '') return { policy: createRetryPolicy(), source: 'shipped preset' };
  const { json, source } = asWorkerConfigError(() => readJsonSetting('RETRY_POLICY', raw));
  try {
    return { policy: createRetryPolicy(parseRetryPolicyJson(json)), source };
  } catch (cause) {
    if (cause instanceof RetryPolicyConfigError) throw new WorkerConfigError('RETRY_POLICY', cause.message, { cause });
    throw cause;
  }
}

/** A setting reader's ConfigError, as the worker's own error for the same variable. */
function asWorkerConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (cause instanceof ConfigError && !(cause instanceof WorkerConfigError)) throw new WorkerConfigError(cause.setting, cause.problem, { cause: cause.cause });
    throw cause;
  }
}

/**
 * The queues: WORKER_CONSUMERS (several), or WORKER_QUEUE_URL with WORKER_DLQ_URL (one),
 * or neither outside production (the embedded emulator). With several, `queues` is the
 * first consumer's, which the local dashboard shows.
 */
function queueSettings(env: Env, production: boolean, defaults: ConsumerDefaults): Pick<WorkerConfig, 'queues' | 'consumers'> {
  const queueUrl = url(env, 'WORKER_QUEUE_URL');
  const dlqUrl = url(env, 'WORKER_DLQ_URL');
  const fail = (variable: string, problem: string, cause?: unknown): never => {
    throw new WorkerConfigError(variable, problem, { cause });
  };
  const consumers = asWorkerConfigError(() => loadConsumers(env.WORKER_CONSUMERS, defaults, fail));
  if (consumers) {
    if (queueUrl || dlqUrl) throw new WorkerConfigError('WORKER_CONSUMERS', 'is set together with WORKER_QUEUE_URL/WORKER_DLQ_URL; use one or the other');
    return { queues: { queueUrl: consumers[0]!.queueUrl, dlqUrl: consumers[0]!.dlqUrl }, consumers };
  }
  if (queueUrl && dlqUrl) return { queues: { queueUrl, dlqUrl }, consumers: undefined };
  if (queueUrl || dlqUrl) throw new WorkerConfigError(queueUrl ? 'WORKER_DLQ_URL' : 'WORKER_QUEUE_URL', 'must be set together with the other queue URL');
  if (production) {
    throw new WorkerConfigError('WORKER_QUEUE_URL', 'is not set, and NODE_ENV=production never starts the embedded emulator; set WORKER_QUEUE_URL and WORKER_DLQ_URL, or WORKER_CONSUMERS');
  }
  return { queues: 'embedded', consumers: undefined };
}

/**
 * Reads and validates the worker's environment (docs/contracts.md, section 2). Throws one
 * WorkerConfigError naming the first bad variable.
 */
export function loadWorkerConfig(env: Env): WorkerConfig {
  const production = env.NODE_ENV === 'production';
  const handler = env.WORKER_HANDLER?.trim() || 'simulation';
  if (!APP_HANDLERS.includes(handler)) throw new WorkerConfigError('WORKER_HANDLER', `must be one of ${APP_HANDLERS.join(', ')}, got ${JSON.stringify(handler)}`);

  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new WorkerConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);

  const { policy, source } = retryPolicy(env.RETRY_POLICY);
  const visibility = env.WORKER_VISIBILITY_TIMEOUT_SECONDS;
  const maxInFlight = integer(env, 'WORKER_MAX_IN_FLIGHT', 50, 1, 10_000);

  return {
    ...queueSettings(env, production, { handler, maxInFlight, retryPolicy: policy, handlers: APP_HANDLERS }),
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    endpoint: url(env, 'AWS_ENDPOINT_URL_SQS') ?? url(env, 'AWS_ENDPOINT_URL'),
    handler,
    maxInFlight,
    prefetch: optionalInteger(env, 'WORKER_PREFETCH', 10_000),
    fifoRetryInPlaceSeconds: optionalInteger(env, 'WORKER_FIFO_RETRY_IN_PLACE_SECONDS', 43_200),
    tracing: onOff(env, 'WORKER_TRACING', 'on'),
    idempotency: idempotencySetting(env),
    fleetState: fleetState(env),
    // SQS limits: long polls wait 0–20 s, a receive returns 1–10 messages, a message
    // stays invisible for at most 12 h.
    waitTimeSeconds: integer(env, 'WORKER_WAIT_TIME_SECONDS', 20, 0, 20, ' (the SQS long-poll maximum is 20)'),
    receiveBatchSize: integer(env, 'WORKER_RECEIVE_BATCH_SIZE', 10, 1, 10, ' (SQS returns at most 10 per receive)'),
    handlerTimeoutMs: integer(env, 'WORKER_HANDLER_TIMEOUT_MS', 300_000, 1, 43_200_000, ' (12 h, the SQS visibility maximum)'),
    drainTimeoutMs: integer(env, 'WORKER_DRAIN_TIMEOUT_MS', 30_000, 0, 3_600_000),
    visibilityTimeoutSeconds:
      visibility === undefined || visibility === '' ? undefined : integer(env, 'WORKER_VISIBILITY_TIMEOUT_SECONDS', 60, 1, 43_200, ' (12 h, the SQS maximum)'),
    healthPort: integer(env, 'WORKER_HEALTH_PORT', 8080, 0, 65_535),
    // Every interface in production (the orchestrator probes it); this machine only elsewhere.
    healthHost: env.WORKER_HEALTH_HOST?.trim() || (production ? '0.0.0.0' : '127.0.0.1'),
    emulatorPort: integer(env, 'WORKER_EMULATOR_PORT', 4566, 0, 65_535),
    retryPolicy: policy,
    retryPolicySource: source,
    backpressure: backpressure(env),
    simulationLedger: ledgerPath(env),
    webhookUrl: url(env, 'WEBHOOK_URL'),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 900_000),
    webhookAllowHosts: allowHosts(env),
    logLevel,
    logRedact: env.LOG_REDACT === undefined ? [...DEFAULT_LOG_REDACT] : env.LOG_REDACT.split(',').map((path) => path.trim()).filter(Boolean),
    metricsNamespace: metricsNamespace(env),
    dashboard: dashboard(env, production),
    production,
    retryStateKeys: retryStateKeys(env, production),
  };
}
