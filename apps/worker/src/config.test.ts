import { enginePolicy } from '@requeue/retry/engine';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig, WorkerConfigError } from './config.js';

/** What production needs besides the queues: the fleet's x-retry key. */
const KEYS = { WORKER_RETRY_STATE_KEYS: 'k'.repeat(40) };

describe('loadWorkerConfig', () => {
  it('runs on the embedded emulator with sensible defaults when nothing is set', () => {
    const config = loadWorkerConfig({});
    expect(config).toMatchObject({ queues: 'embedded', handler: 'simulation', maxInFlight: 50, waitTimeSeconds: 20, healthPort: 8080, logLevel: 'info' });
    expect(enginePolicy(config.retryPolicy).config.maxAttempts).toBe(20);
  });

  it('needs the x-retry keys in production, at least 32 characters each, and reads them comma-separated, first signing', () => {
    const production = { NODE_ENV: 'production', WORKER_QUEUE_URL: 'https://q', WORKER_DLQ_URL: 'https://d' };
    expect(() => loadWorkerConfig(production)).toThrow(/^WORKER_RETRY_STATE_KEYS: is not set: .*openssl rand -base64 48/);
    expect(() => loadWorkerConfig({ ...production, WORKER_RETRY_STATE_KEYS: 'short' })).toThrow(
      /^WORKER_RETRY_STATE_KEYS: key 1 has 5 characters; use at least 32/,
    );
    expect(loadWorkerConfig({ ...production, WORKER_RETRY_STATE_KEYS: `${'n'.repeat(32)}, ${'o'.repeat(32)}` }).retryStateKeys).toEqual([
      'n'.repeat(32),
      'o'.repeat(32),
    ]);
    expect(loadWorkerConfig({}).retryStateKeys).toBeUndefined();
  });

  it('never echoes a password or token from a bad setting into its error', () => {
    for (const [variable, value] of [
      ['WORKER_IDEMPOTENCY', 'redis//:s3cr3t@cache:6379'],
      ['WORKER_FLEET_STATE', 'memcached://ops:s3cr3t@cache'],
      ['WORKER_QUEUE_URL', 'https://ops:s3cr3t@sqs.example.com:bad/q'],
      ['WORKER_DLQ_URL', 'ftp://sqs.example.com/q?token=s3cr3t'],
    ]) {
      const env = { WORKER_QUEUE_URL: 'https://sqs.example.com/1/q', WORKER_DLQ_URL: 'https://sqs.example.com/1/d', [variable!]: value };
      const error = (() => {
        try {
          loadWorkerConfig(env);
        } catch (thrown) {
          return thrown as WorkerConfigError;
        }
        throw new Error(`${variable}=${value} was accepted`);
      })();
      expect(error).toBeInstanceOf(WorkerConfigError);
      expect(error.message).toContain(`${variable}:`);
      expect(`${error.message} ${error.problem}`).not.toContain('s3cr3t');
    }
  });

  it('reads RETRY_POLICY inline or from a file', () => {
    expect(enginePolicy(loadWorkerConfig({ RETRY_POLICY: '{"maxAttempts":4}' }).retryPolicy).config.maxAttempts).toBe(4);
    const file = join(mkdtempSync(join(tmpdir(), 'policy-')), 'policy.json');
    writeFileSync(file, '{"maxAttempts":6,"types":{"RATE_LIMIT":{"maxDelayMs":120000}}}');
    const fromFile = loadWorkerConfig({ RETRY_POLICY: file });
    expect(enginePolicy(fromFile.retryPolicy).config.maxAttempts).toBe(6);
    expect(enginePolicy(fromFile.retryPolicy).config.types.RATE_LIMIT!.maxDelayMs).toBe(120_000);
  });

  it('shares backpressure through the store WORKER_FLEET_STATE names, and refuses one it cannot use', () => {
    expect(loadWorkerConfig({}).fleetState).toBeUndefined();
    expect(loadWorkerConfig({ WORKER_FLEET_STATE: 'off' }).fleetState).toBeUndefined();
    expect(loadWorkerConfig({ WORKER_FLEET_STATE: 'redis://cache:6379' }).fleetState).toEqual({ store: 'redis', url: 'redis://cache:6379' });
    expect(loadWorkerConfig({ WORKER_FLEET_STATE: 'dynamodb:requeue-fleet' }).fleetState).toEqual({ store: 'dynamodb', tableName: 'requeue-fleet' });
    expect(() => loadWorkerConfig({ WORKER_FLEET_STATE: 'memcached://cache' })).toThrow(
      /WORKER_FLEET_STATE: must be off, redis:\/\/host:port or dynamodb:<table>/,
    );
    expect(() => loadWorkerConfig({ WORKER_FLEET_STATE: 'dynamodb:x' })).toThrow(/WORKER_FLEET_STATE: names a DynamoDB table that cannot exist/);
    expect(() => loadWorkerConfig({ WORKER_FLEET_STATE: 'redis://cache:6379', WORKER_BACKPRESSURE: 'off' })).toThrow(
      /WORKER_FLEET_STATE: .*WORKER_BACKPRESSURE is off/,
    );
  });

  it('names the policy path at fault', () => {
    expect(() => loadWorkerConfig({ RETRY_POLICY: '{"types":{"RATE_LIMIT":{"maxDelayMs":-5}}}' })).toThrow(/RETRY_POLICY: .*types\.RATE_LIMIT\.maxDelayMs/);
  });

  it('needs both queue URLs, and both in production', () => {
    expect(() => loadWorkerConfig({ WORKER_QUEUE_URL: 'http://q' })).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ NODE_ENV: 'production' })).toThrow(/WORKER_QUEUE_URL/);
    expect(loadWorkerConfig({ NODE_ENV: 'production', WORKER_QUEUE_URL: 'https://q', WORKER_DLQ_URL: 'https://d', ...KEYS }).queues).toEqual({
      queueUrl: 'https://q',
      dlqUrl: 'https://d',
    });
  });

  it('turns backpressure on by default with the measured breaker defaults, and lets each part be tuned or turned off', () => {
    expect(loadWorkerConfig({}).backpressure).toEqual({
      breaker: { failureRate: 0.5, minimumRequests: 20, windowMs: 10_000, cooldownMs: 1000, maxCooldownMs: 5000 },
      adaptiveConcurrency: true,
    });
    expect(loadWorkerConfig({ WORKER_BACKPRESSURE: 'off' }).backpressure).toBe(false);
    expect(loadWorkerConfig({ WORKER_BREAKER: 'off', WORKER_ADAPTIVE_CONCURRENCY: 'off' }).backpressure).toEqual({
      breaker: false,
      adaptiveConcurrency: false,
    });
    expect(loadWorkerConfig({ WORKER_BREAKER_FAILURE_RATE: '0.8', WORKER_BREAKER_COOLDOWN_MS: '60000' }).backpressure).toMatchObject({
      breaker: { failureRate: 0.8, cooldownMs: 60_000, maxCooldownMs: 60_000 },
    });
  });

  it('traces by default, WORKER_TRACING=off turns it off, and WORKER_TRACE_URL must say where the trace id goes', () => {
    expect(loadWorkerConfig({}).tracing).toBe(true);
    expect(loadWorkerConfig({ WORKER_TRACING: 'off' }).tracing).toBe(false);
    expect(loadWorkerConfig({ WORKER_TRACE_URL: 'http://localhost:16686/trace/{traceId}' }).dashboard.traceUrl).toBe('http://localhost:16686/trace/{traceId}');
    expect(() => loadWorkerConfig({ WORKER_TRACE_URL: 'http://localhost:16686/trace/' })).toThrow('WORKER_TRACE_URL: must contain {traceId}');
    expect(() => loadWorkerConfig({ WORKER_TRACING: 'yes' })).toThrow(WorkerConfigError);
  });

  it('binds health to 127.0.0.1 outside production and to every interface in production, unless told', () => {
    expect(loadWorkerConfig({}).healthHost).toBe('127.0.0.1');
    expect(loadWorkerConfig({ NODE_ENV: 'production', WORKER_QUEUE_URL: 'https://q', WORKER_DLQ_URL: 'https://d', ...KEYS }).healthHost).toBe('0.0.0.0');
    expect(loadWorkerConfig({ WORKER_HEALTH_HOST: '0.0.0.0' }).healthHost).toBe('0.0.0.0');
  });

  it('reads WEBHOOK_ALLOW_HOSTS as hosts and host:port entries', () => {
    expect(loadWorkerConfig({}).webhookAllowHosts).toEqual([]);
    expect(loadWorkerConfig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1, Hooks.internal:8443,[::1]:9000' }).webhookAllowHosts).toEqual([
      '127.0.0.1',
      'hooks.internal:8443',
      '[::1]:9000',
    ]);
    expect(() => loadWorkerConfig({ WEBHOOK_ALLOW_HOSTS: 'http://x/' })).toThrow(/WEBHOOK_ALLOW_HOSTS/);
  });

  it('prefers AWS_ENDPOINT_URL_SQS over AWS_ENDPOINT_URL', () => {
    expect(loadWorkerConfig({ AWS_ENDPOINT_URL: 'http://a', AWS_ENDPOINT_URL_SQS: 'http://b' }).endpoint).toBe('http://b');
  });
});
