import { enginePolicy } from '@requeue/retry/engine';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { SqsWorker } from '../worker.js';
import { EmfMetrics } from '../events/metrics.js';
import { MissingPeerError, optionalPeer, requiredPeer } from '../peers/optional-peer.js';
import { WorkerConfigError } from './config-error.js';
import { workerOptionsFromEnv } from './worker-options.js';

/** What QueueWorkerService puts in the container's environment (libs/cdk/src/worker-container.ts). */
const FROM_THE_STACK = {
  WORKER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
  WORKER_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq',
  WORKER_HANDLER: 'charge',
  RETRY_POLICY: '{"maxAttempts":4}',
  METRICS_NAMESPACE: 'Orders',
  WORKER_MAX_IN_FLIGHT: '7',
  WORKER_DRAIN_TIMEOUT_MS: '45000',
  WORKER_HEALTH_PORT: '8080',
};

describe('workerOptionsFromEnv', () => {
  it('turns what the stack sets into the engine options it means', () => {
    const options = workerOptionsFromEnv(FROM_THE_STACK);
    expect(options).toMatchObject({
      queueUrl: FROM_THE_STACK.WORKER_QUEUE_URL,
      deadLetterQueueUrl: FROM_THE_STACK.WORKER_DLQ_URL,
      handlerName: 'charge',
      maxInFlight: 7,
      drainTimeoutMs: 45_000,
    });
    expect(enginePolicy(options.retryPolicy!).config.maxAttempts).toBe(4);
    expect(options.metrics).toBeInstanceOf(EmfMetrics);
    expect(options.idempotency).toBeUndefined();
    expect(options.tracing).toBeUndefined();
  });

  it('leaves out what is unset, writes no metrics without METRICS_NAMESPACE, and turns tracing off on request', () => {
    const options = workerOptionsFromEnv({ WORKER_QUEUE_URL: 'http://q', WORKER_DLQ_URL: 'http://d', WORKER_TRACING: 'off' });
    expect(Object.keys(options)).not.toContain('metrics');
    expect(Object.keys(options)).not.toContain('prefetch');
    expect(options.tracing).toBe(false);
    expect(Object.keys(options)).not.toContain('taskProtection');
  });

  it("reads a batch handler's size and window, refusing a size the handler slots could never fill", () => {
    const queues = { WORKER_QUEUE_URL: 'http://q', WORKER_DLQ_URL: 'http://d' };
    expect(workerOptionsFromEnv({ ...queues, WORKER_BATCH_SIZE: '25', WORKER_BATCH_WINDOW_MS: '200' })).toMatchObject({ batchSize: 25, batchWindowMs: 200 });
    expect(Object.keys(workerOptionsFromEnv(queues))).not.toContain('batchSize');
    expect(() => workerOptionsFromEnv({ ...queues, WORKER_MAX_IN_FLIGHT: '5', WORKER_BATCH_SIZE: '10' })).toThrow(
      /^WORKER_BATCH_SIZE: must be at most WORKER_MAX_IN_FLIGHT \(5\)/,
    );
    expect(() => workerOptionsFromEnv({ ...queues, WORKER_BATCH_WINDOW_MS: '-1' })).toThrow(/^WORKER_BATCH_WINDOW_MS/);
  });

  it('reads task protection: on by default (where ECS_AGENT_URI says the task is on ECS), off or with its idle time on request', () => {
    const queues = { WORKER_QUEUE_URL: 'http://q', WORKER_DLQ_URL: 'http://d' };
    expect(workerOptionsFromEnv({ ...queues, WORKER_TASK_PROTECTION: 'off' }).taskProtection).toBe(false);
    expect(workerOptionsFromEnv({ ...queues, WORKER_TASK_PROTECTION_IDLE_MS: '30000' }).taskProtection).toEqual({ idleMs: 30_000 });
    expect(() => workerOptionsFromEnv({ ...queues, WORKER_TASK_PROTECTION: 'sometimes' })).toThrow(/^WORKER_TASK_PROTECTION: must be on or off/);
  });

  it('names the variable at fault in one line', () => {
    expect(() => workerOptionsFromEnv({ WORKER_DLQ_URL: 'http://d' })).toThrow(/^WORKER_QUEUE_URL: is not set/);
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_MAX_IN_FLIGHT: 'lots' })).toThrow(
      new WorkerConfigError('WORKER_MAX_IN_FLIGHT', 'must be a whole number from 1 to 10000, got "lots"'),
    );
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, NODE_ENV: 'production' })).toThrow(/^WORKER_RETRY_STATE_KEYS: is not set/);
  });

  it('builds the idempotency store the environment names, with close() left out of a spread', async () => {
    const options = workerOptionsFromEnv({
      ...FROM_THE_STACK,
      AWS_REGION: 'eu-west-1',
      WORKER_IDEMPOTENCY: 'dynamodb:orders-idempotency',
      WORKER_IDEMPOTENCY_KEY: 'body.orderId',
    });
    expect(options.idempotency?.key?.({ body: { orderId: 'o-1' }, idempotencyKey: 'm', attempt: 1 } as never)).toBe('o-1');
    expect(typeof options.idempotency?.store.saveInProgress).toBe('function');
    expect({ ...options }).not.toHaveProperty('close');
    await options.close();
  });

  it("reports a store's outage through the logger of the worker built on the options, not the console", async () => {
    const lines: string[] = [];
    const record = (_fields: object, message: string) => void lines.push(message);
    const logger = { debug: record, info: record, warn: record, error: record };
    // Nothing listens on port 1: the connection fails at once.
    const options = workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_IDEMPOTENCY: 'redis://127.0.0.1:1' });
    new SqsWorker({ ...options, sqs: new SQSClient({ region: 'eu-west-1' }), handler: async () => undefined, logger });
    await vi.waitFor(() => expect(lines).toContain('idempotency store (Redis) unreachable; retrying'));
    await options.close();
  });
});

describe('optional peers', () => {
  const missing = (name: string) => {
    throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
  };

  it('are undefined when not installed, and a feature that needs one says what to install', () => {
    expect(optionalPeer('@opentelemetry/api', missing)).toBeUndefined();
    expect(() => requiredPeer('@redis/client', 'WORKER_IDEMPOTENCY=redis://…', ['@aws-lambda-powertools/idempotency'], missing)).toThrow(
      new MissingPeerError(['@redis/client', '@aws-lambda-powertools/idempotency'], 'WORKER_IDEMPOTENCY=redis://…'),
    );
    expect(new MissingPeerError(['@redis/client'], 'WORKER_FLEET_STATE=redis://…').message).toBe(
      'WORKER_FLEET_STATE=redis://… needs @redis/client, which is not installed: npm install @redis/client',
    );
    // A subpath's package is what gets installed.
    expect(() => requiredPeer('@aws-lambda-powertools/idempotency/dynamodb', 'WORKER_IDEMPOTENCY=dynamodb:…', [], missing)).toThrow(
      /npm install @aws-lambda-powertools\/idempotency$/,
    );
  });

  it('rethrow a broken install instead of hiding it', () => {
    const broken = () => {
      throw Object.assign(new Error("Cannot find module './lib/index.js'"), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => optionalPeer('@opentelemetry/api', broken)).toThrow('./lib/index.js');
  });

  it('reads tenants from WORKER_TENANT_KEY and WORKER_TENANT_MAX_IN_FLIGHT, naming the bad variable', () => {
    expect(workerOptionsFromEnv(FROM_THE_STACK).tenants).toBeUndefined();
    expect(workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_MAX_IN_FLIGHT: '50%' }).tenants).toEqual({
      key: 'group',
      maxInFlight: '50%',
    });
    expect(workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'body.customerId', WORKER_TENANT_MAX_IN_FLIGHT: '3' }).tenants).toEqual({
      key: 'body.customerId',
      maxInFlight: 3,
    });
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'customer' })).toThrow(
      /^WORKER_TENANT_KEY: must be group, attribute\.<name> or body\.<path>/,
    );
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_MAX_IN_FLIGHT: 'half' })).toThrow(
      /^WORKER_TENANT_MAX_IN_FLIGHT: must be a whole number/,
    );
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_MAX_IN_FLIGHT: '5' })).toThrow(
      /^WORKER_TENANT_MAX_IN_FLIGHT: needs WORKER_TENANT_KEY/,
    );
    expect(workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_PREFETCH: '200' }).tenants).toEqual({
      key: 'group',
      prefetch: 200,
    });
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_PREFETCH: 'lots' })).toThrow(/^WORKER_TENANT_PREFETCH/);
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_PREFETCH: '200' })).toThrow(/^WORKER_TENANT_PREFETCH: needs WORKER_TENANT_KEY/);
    expect(workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_VALUES: 'acme, globex' }).tenants).toEqual({
      key: 'group',
      values: ['acme', 'globex'],
    });
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_KEY: 'group', WORKER_TENANT_VALUES: 'acme,,globex' })).toThrow(
      /^WORKER_TENANT_VALUES: must list/,
    );
    expect(() => workerOptionsFromEnv({ ...FROM_THE_STACK, WORKER_TENANT_VALUES: 'acme' })).toThrow(/^WORKER_TENANT_VALUES: needs WORKER_TENANT_KEY/);
  });
});
