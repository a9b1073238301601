import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../../apps/worker/src/config.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

/** Starts the worker with `env` and waits for it to exit; it is killed if a check fails first. */
async function exitOf(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const started: WorkerProcess = startWorkerProcess(env);
  try {
    const { code } = await started.exited;
    return { code, output: started.output() };
  } finally {
    started.child.kill('SIGKILL');
  }
}

const queues = { WORKER_QUEUE_URL: 'http://127.0.0.1:1/000000000000/q', WORKER_DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq' };

// Every setting with an invalid value: negative, zero where not allowed, beyond the SQS
// limits, malformed. Each must stop the worker before it touches a queue.
const INVALID: Array<[Record<string, string>, string]> = [
  [{ WORKER_MAX_IN_FLIGHT: '-1' }, 'WORKER_MAX_IN_FLIGHT'],
  [{ WORKER_MAX_IN_FLIGHT: '0' }, 'WORKER_MAX_IN_FLIGHT'],
  [{ WORKER_MAX_IN_FLIGHT: '2.5' }, 'WORKER_MAX_IN_FLIGHT'],
  [{ WORKER_MAX_IN_FLIGHT: 'lots' }, 'WORKER_MAX_IN_FLIGHT'],
  [{ WORKER_WAIT_TIME_SECONDS: '-1' }, 'WORKER_WAIT_TIME_SECONDS'],
  [{ WORKER_WAIT_TIME_SECONDS: '21' }, 'WORKER_WAIT_TIME_SECONDS'],
  [{ WORKER_RECEIVE_BATCH_SIZE: '0' }, 'WORKER_RECEIVE_BATCH_SIZE'],
  [{ WORKER_RECEIVE_BATCH_SIZE: '11' }, 'WORKER_RECEIVE_BATCH_SIZE'],
  [{ WORKER_HANDLER_TIMEOUT_MS: '0' }, 'WORKER_HANDLER_TIMEOUT_MS'],
  [{ WORKER_HANDLER_TIMEOUT_MS: '43200001' }, 'WORKER_HANDLER_TIMEOUT_MS'],
  [{ WORKER_DRAIN_TIMEOUT_MS: '-5' }, 'WORKER_DRAIN_TIMEOUT_MS'],
  [{ WORKER_VISIBILITY_TIMEOUT_SECONDS: '0' }, 'WORKER_VISIBILITY_TIMEOUT_SECONDS'],
  [{ WORKER_VISIBILITY_TIMEOUT_SECONDS: '43201' }, 'WORKER_VISIBILITY_TIMEOUT_SECONDS'],
  [{ WORKER_HEALTH_PORT: '-1' }, 'WORKER_HEALTH_PORT'],
  [{ WORKER_HEALTH_PORT: '65536' }, 'WORKER_HEALTH_PORT'],
  [{ WORKER_HEALTH_PORT: 'eighty' }, 'WORKER_HEALTH_PORT'],
  [{ WORKER_EMULATOR_PORT: '70000' }, 'WORKER_EMULATOR_PORT'],
  [{ WORKER_DASHBOARD: 'maybe' }, 'WORKER_DASHBOARD'],
  [{ WORKER_BACKPRESSURE: 'yes' }, 'WORKER_BACKPRESSURE'],
  [{ WORKER_BREAKER: '1' }, 'WORKER_BREAKER'],
  [{ WORKER_ADAPTIVE_CONCURRENCY: 'true' }, 'WORKER_ADAPTIVE_CONCURRENCY'],
  [{ WORKER_BREAKER_FAILURE_RATE: '50%' }, 'WORKER_BREAKER_FAILURE_RATE'],
  [{ WORKER_BREAKER_FAILURE_RATE: '0' }, 'WORKER_BREAKER_FAILURE_RATE'],
  [{ WORKER_BREAKER_FAILURE_RATE: '1.5' }, 'WORKER_BREAKER_FAILURE_RATE'],
  [{ WORKER_BREAKER_MIN_REQUESTS: '0' }, 'WORKER_BREAKER_MIN_REQUESTS'],
  [{ WORKER_PREFETCH: '-1' }, 'WORKER_PREFETCH'],
  [{ WORKER_BREAKER_WINDOW_MS: '10s' }, 'WORKER_BREAKER_WINDOW_MS'],
  [{ WORKER_BREAKER_COOLDOWN_MS: '5' }, 'WORKER_BREAKER_COOLDOWN_MS'],
  [{ WORKER_BREAKER_COOLDOWN_MS: '5000', WORKER_BREAKER_MAX_COOLDOWN_MS: '1000' }, 'WORKER_BREAKER_MAX_COOLDOWN_MS'],
  [{ WORKER_DASHBOARD: 'on', WORKER_DASHBOARD_PORT: '70000' }, 'WORKER_DASHBOARD_PORT'],
  [{ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS'],
  [{ WEBHOOK_URL: 'ftp://example.com/hook' }, 'WEBHOOK_URL'],
  [{ WEBHOOK_ALLOW_HOSTS: 'http://127.0.0.1' }, 'WEBHOOK_ALLOW_HOSTS'],
  [{ WORKER_HANDLER: 'does-not-exist' }, 'WORKER_HANDLER'],
  [{ WORKER_HANDLER: 'bad name!' }, 'WORKER_HANDLER'],
  [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  [{ METRICS_NAMESPACE: 'AWS/SQS' }, 'METRICS_NAMESPACE'],
  [{ METRICS_NAMESPACE: 'has spaces' }, 'METRICS_NAMESPACE'],
  [{ SIMULATION_LEDGER: '/no/such/folder/ledger.jsonl' }, 'SIMULATION_LEDGER'],
  [{ RETRY_POLICY: '{"maxAttempts": 3' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '/no/such/policy.json' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"maxAttempts":0}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"maxAttempts":-3}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"deadlineSeconds":-1}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"types":{"TEMPORARY":{"backoff":{"type":"fixed","delayMs":-1}}}}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"types":{"TEMPORARY":{"backoff":{"type":"warp"}}}}' }, 'RETRY_POLICY'],
  // Delays over 900 s (the SQS DelaySeconds maximum) need hops; a hop ceiling above it cannot work.
  [{ RETRY_POLICY: '{"hopCeilingSeconds":901}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '{"jitter":{"type":"proportional","fraction":2}}' }, 'RETRY_POLICY'],
  [{ RETRY_POLICY: '["not","an","object"]' }, 'RETRY_POLICY'],
  [{ WORKER_QUEUE_URL: 'not a url', WORKER_DLQ_URL: 'http://x' }, 'WORKER_QUEUE_URL'],
  [{ WORKER_QUEUE_URL: 'http://127.0.0.1:1/000000000000/q' }, 'WORKER_DLQ_URL'],
  [{ NODE_ENV: 'production' }, 'WORKER_QUEUE_URL'],
];

/** Holds a port on 127.0.0.1 as another process would. */
async function takenPort(): Promise<{ port: number; close(): void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** A setting of each kind the process check covers: integer, on/off, URL, JSON policy, handler name, file path, production's queues. */
const THROUGH_THE_PROCESS = [
  'WORKER_MAX_IN_FLIGHT',
  'WORKER_BACKPRESSURE',
  'WEBHOOK_URL',
  'RETRY_POLICY',
  'WORKER_HANDLER',
  'SIMULATION_LEDGER',
  'WORKER_QUEUE_URL',
];

describe('worker configuration validation', () => {
  // The worker processes below mostly wait on their own start: they run at once.
  it.concurrent.each([
    ['WORKER_HEALTH_PORT', queues],
    ['WORKER_EMULATOR_PORT', {}],
  ] as const)(
    'exits 1 with one line naming %s when its port is taken',
    async (variable, env) => {
      const taken = await takenPort();
      try {
        const { code, output } = await exitOf({ ...env, [variable]: String(taken.port), WORKER_DASHBOARD: 'off' });
        expect(code).toBe(1);
        expect(output).toContain(`requeue worker: ${variable}: port ${taken.port}`);
        expect(output).toContain(`set ${variable} to a free port`);
        expect(output).not.toMatch(/^\s+at /m);
      } finally {
        taken.close();
      }
    },
    60_000,
  );

  // Every row through the reader, in this process; a row per kind of setting through the
  // worker process as well, which must turn the same error into one line and exit 1.
  it.each(INVALID)('refuses %j, naming the setting', (env, variable) => {
    const needsQueues = !('WORKER_QUEUE_URL' in env) && env.NODE_ENV !== 'production';
    expect(() => loadWorkerConfig({ ...(needsQueues ? queues : {}), ...env })).toThrow(new RegExp(`^${variable}: `));
  });

  const firstOfEachKind = THROUGH_THE_PROCESS.map((name) => INVALID.find(([, variable]) => variable === name)!);
  it.concurrent.each(firstOfEachKind)('exits 1 with one line naming the setting for %j', async (env, variable) => {
    const needsQueues = !('WORKER_QUEUE_URL' in env) && env.NODE_ENV !== 'production';
    const { code, output } = await exitOf({ ...(needsQueues ? queues : {}), ...env });
    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^requeue worker: ${variable}: `));
  });
});
