import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readIntegerSetting, readOnOffSetting, readUrlSetting, readWorkerEnv, WorkerConfigError, type Env, type WorkerEnvSettings } from '@requeue/sqs/env';
import { loadConsumers, type ConsumerConfig, type ConsumerDefaults } from './consumers-config.js';
import { DEFAULT_LOG_REDACT } from './log-redact.js';

export { WorkerConfigError };

/** The engine's settings (read by `@requeue/sqs/env`, as any app of yours reads them), and this app's own. */
export interface WorkerConfig extends Omit<WorkerEnvSettings, 'queueUrl' | 'deadLetterQueueUrl' | 'handlerName' | 'metricsNamespace'> {
  /** Queue URLs, or `embedded` to start the local emulator (never in production). With WORKER_CONSUMERS, the first consumer's. */
  queues: { queueUrl: string; dlqUrl: string } | 'embedded';
  /** WORKER_CONSUMERS: several queues in one process; undefined for the single-queue variables. */
  consumers: ConsumerConfig[] | undefined;
  region: string;
  endpoint: string | undefined;
  handler: string;
  healthPort: number;
  healthHost: string;
  emulatorPort: number;
  /** WORKER_START_TIMEOUT_MS: exit 1 when no consumer has started this long after boot; 0 keeps trying. */
  startTimeoutMs: number;
  simulationLedger: string | undefined;
  /** SIMULATION_STARTS: one line per handler run begun, so that a run cut short shows as a start without its success. */
  simulationStarts: string | undefined;
  /** SIMULATION_BULK_SINK_MS: the bulk call `simulation-batch` makes per batch, before each message's own outcome. */
  simulationBulkSink: { callMs: number; itemMs: number } | undefined;
  webhookUrl: string | undefined;
  webhookTimeoutMs: number;
  /** Internal hosts (`host` or `host:port`) the webhook handler may call anyway. */
  webhookAllowHosts: string[];
  logLevel: string;
  logRedact: string[];
  metricsNamespace: string;
  /** The local dashboard: on by default outside production, off in production unless WORKER_DASHBOARD=on. */
  dashboard: { enabled: boolean; host: string; port: number; traceUrl: string | undefined };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** The handlers this app registers (src/handlers). An app of your own registers its own with @SqsHandler. */
export const APP_HANDLERS = ['simulation', 'simulation-batch', 'simulation-unchecked', 'webhook'];

/** The ledger is appended to on every success: a path that cannot be written would fail every message. */
/** A file the simulation handler appends to (SIMULATION_LEDGER, SIMULATION_STARTS): its folder must take it. */
function ledgerPath(env: Env, name: 'SIMULATION_LEDGER' | 'SIMULATION_STARTS'): string | undefined {
  const path = env[name]?.trim();
  if (!path) return undefined;
  try {
    accessSync(dirname(resolve(path)), constants.W_OK);
  } catch (cause) {
    throw new WorkerConfigError(name, `its folder ${dirname(resolve(path))} does not exist or is not writable`, { cause });
  }
  return path;
}

function dashboard(env: Env, production: boolean): WorkerConfig['dashboard'] {
  return {
    enabled: readOnOffSetting(env, 'WORKER_DASHBOARD', production ? 'off' : 'on'),
    // Loopback by default: the page can replay and discard dead letters.
    host: env.WORKER_DASHBOARD_HOST?.trim() || '127.0.0.1',
    port: readIntegerSetting(env, 'WORKER_DASHBOARD_PORT', { default: 8081, min: 0, max: 65_535 }),
    traceUrl: traceUrl(env),
  };
}

/** WORKER_TRACE_URL: where the dashboard links a trace id, e.g. a Jaeger or X-Ray console URL with `{traceId}` in it. */
function traceUrl(env: Env): string | undefined {
  const template = readUrlSetting(env, 'WORKER_TRACE_URL');
  if (template !== undefined && !template.includes('{traceId}')) {
    throw new WorkerConfigError('WORKER_TRACE_URL', `must contain {traceId}, where the trace id goes, got ${JSON.stringify(template)}`);
  }
  return template;
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

/**
 * The queues: WORKER_CONSUMERS (several), or WORKER_QUEUE_URL with WORKER_DLQ_URL (one),
 * or neither outside production (the embedded emulator). With several, `queues` is the
 * first consumer's, which the local dashboard shows.
 */
function queueSettings(
  env: Env,
  { queueUrl, dlqUrl }: { queueUrl: string | undefined; dlqUrl: string | undefined },
  production: boolean,
  defaults: ConsumerDefaults,
): Pick<WorkerConfig, 'queues' | 'consumers'> {
  const fail = (variable: string, problem: string, cause?: unknown): never => {
    throw new WorkerConfigError(variable, problem, { cause });
  };
  const consumers = loadConsumers(env.WORKER_CONSUMERS, defaults, fail);
  if (consumers) {
    if (queueUrl || dlqUrl) throw new WorkerConfigError('WORKER_CONSUMERS', 'is set together with WORKER_QUEUE_URL/WORKER_DLQ_URL; use one or the other');
    return { queues: { queueUrl: consumers[0]!.queueUrl, dlqUrl: consumers[0]!.dlqUrl }, consumers };
  }
  if (queueUrl && dlqUrl) return { queues: { queueUrl, dlqUrl }, consumers: undefined };
  if (queueUrl || dlqUrl) throw new WorkerConfigError(queueUrl ? 'WORKER_DLQ_URL' : 'WORKER_QUEUE_URL', 'must be set together with the other queue URL');
  if (production) throw noQueuesInProduction();
  return { queues: 'embedded', consumers: undefined };
}

function noQueuesInProduction(): WorkerConfigError {
  return new WorkerConfigError(
    'WORKER_QUEUE_URL',
    'is not set, and NODE_ENV=production never starts the embedded emulator; set WORKER_QUEUE_URL and WORKER_DLQ_URL, or WORKER_CONSUMERS',
  );
}

/**
 * Reads and validates the worker's environment (docs/contracts.md, section 2): the engine's
 * settings through `readWorkerEnv`, then this app's. Throws one WorkerConfigError naming
 * the first bad variable.
 */
export function loadWorkerConfig(env: Env): WorkerConfig {
  // The first thing production lacks, before the settings that follow from it.
  if (env.NODE_ENV === 'production' && !env.WORKER_QUEUE_URL && !env.WORKER_DLQ_URL && !env.WORKER_CONSUMERS) throw noQueuesInProduction();
  const { queueUrl, deadLetterQueueUrl, handlerName, metricsNamespace, ...engine } = readWorkerEnv(env);
  const handler = handlerName ?? 'simulation';
  if (!APP_HANDLERS.includes(handler))
    throw new WorkerConfigError('WORKER_HANDLER', `must be one of ${APP_HANDLERS.join(', ')}, got ${JSON.stringify(handler)}`);

  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new WorkerConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);

  return {
    ...engine,
    ...queueSettings(env, { queueUrl, dlqUrl: deadLetterQueueUrl }, engine.production, {
      handler,
      maxInFlight: engine.maxInFlight,
      retryPolicy: engine.retryPolicy,
      handlers: APP_HANDLERS,
    }),
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    endpoint: readUrlSetting(env, 'AWS_ENDPOINT_URL_SQS') ?? readUrlSetting(env, 'AWS_ENDPOINT_URL'),
    handler,
    healthPort: readIntegerSetting(env, 'WORKER_HEALTH_PORT', { default: 8080, min: 0, max: 65_535 }),
    // Every interface in production (the orchestrator probes it); this machine only elsewhere.
    healthHost: env.WORKER_HEALTH_HOST?.trim() || (engine.production ? '0.0.0.0' : '127.0.0.1'),
    emulatorPort: readIntegerSetting(env, 'WORKER_EMULATOR_PORT', { default: 4566, min: 0, max: 65_535 }),
    startTimeoutMs: readIntegerSetting(env, 'WORKER_START_TIMEOUT_MS', { default: 30_000, min: 0, max: 3_600_000 }),
    simulationLedger: ledgerPath(env, 'SIMULATION_LEDGER'),
    simulationStarts: ledgerPath(env, 'SIMULATION_STARTS'),
    simulationBulkSink: bulkSink(env.SIMULATION_BULK_SINK_MS),
    webhookUrl: readUrlSetting(env, 'WEBHOOK_URL'),
    webhookTimeoutMs: readIntegerSetting(env, 'WEBHOOK_TIMEOUT_MS', { default: 10_000, min: 1, max: 900_000 }),
    webhookAllowHosts: allowHosts(env),
    logLevel,
    logRedact:
      env.LOG_REDACT === undefined
        ? [...DEFAULT_LOG_REDACT]
        : env.LOG_REDACT.split(',')
            .map((path) => path.trim())
            .filter(Boolean),
    // This app always writes EMF metrics, to its own namespace unless told.
    metricsNamespace: metricsNamespace ?? 'requeue',
    dashboard: dashboard(env, engine.production),
  };
}

/** `<ms per call>[,<ms per message>]`, e.g. `5,0.5`: a bulk API's time for one call of n messages. */
function bulkSink(setting: string | undefined): WorkerConfig['simulationBulkSink'] {
  if (setting === undefined || setting.trim() === '') return undefined;
  const [callMs, itemMs = 0, ...rest] = setting.split(',').map((part) => Number(part.trim()));
  const valid = (ms: number | undefined) => ms !== undefined && Number.isFinite(ms) && ms >= 0 && ms <= 60_000;
  if (rest.length > 0 || !valid(callMs) || !valid(itemMs))
    throw new WorkerConfigError(
      'SIMULATION_BULK_SINK_MS',
      `must be <ms per call>[,<ms per message>], each 0-60000, e.g. 5,0.5; got ${JSON.stringify(setting)}`,
    );
  return { callMs: callMs!, itemMs };
}
