import { enginePolicy } from '@requeue/retry/engine';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig, WorkerConfigError } from './config.js';

const pair = (name: string) => ({ queueUrl: `https://sqs.eu-west-1.amazonaws.com/1/${name}`, dlqUrl: `https://sqs.eu-west-1.amazonaws.com/1/${name}-dlq` });

describe('WORKER_CONSUMERS: several queues in one worker', () => {
  it('reads a JSON list, taking WORKER_HANDLER, WORKER_MAX_IN_FLIGHT and RETRY_POLICY where a consumer says nothing', () => {
    const config = loadWorkerConfig({
      NODE_ENV: 'production',
      WORKER_RETRY_STATE_KEYS: 'k'.repeat(32),
      WORKER_HANDLER: 'webhook',
      WORKER_MAX_IN_FLIGHT: '30',
      RETRY_POLICY: '{"maxAttempts":7}',
      WORKER_CONSUMERS: JSON.stringify([
        { name: 'orders', ...pair('orders') },
        { name: 'ledger', ...pair('ledger'), handler: 'simulation', maxInFlight: 5, retryPolicy: { maxAttempts: 3 } },
      ]),
    });
    expect(config.consumers!.map((c) => [c.name, c.handler, c.maxInFlight, enginePolicy(c.retryPolicy).config.maxAttempts])).toEqual([
      ['orders', 'webhook', 30, 7],
      ['ledger', 'simulation', 5, 3],
    ]);
    // The dashboard and the banner show the first consumer's queues.
    expect(config.queues).toEqual(pair('orders'));
  });

  it('reads the list from a file, and keeps the single-queue variables as the simple case', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'consumers-')), 'consumers.json');
    writeFileSync(file, JSON.stringify([pair('a')]));
    expect(loadWorkerConfig({ WORKER_CONSUMERS: file }).consumers).toEqual([expect.objectContaining({ name: 'simulation', ...pair('a') })]);
    expect(loadWorkerConfig({ WORKER_QUEUE_URL: 'https://q', WORKER_DLQ_URL: 'https://d' }).consumers).toBeUndefined();
  });

  it('names the entry and field at fault, one line each', () => {
    const bad = (consumers: unknown) => () => loadWorkerConfig({ WORKER_CONSUMERS: JSON.stringify(consumers) });
    expect(bad([{ ...pair('a'), queueUrl: 'ftp://x' }])).toThrow(/^WORKER_CONSUMERS\[0\]\.queueUrl: must be an http\(s\) URL/);
    expect(bad([pair('a'), { ...pair('b'), handler: 'nope' }])).toThrow(
      /^WORKER_CONSUMERS\[1\]\.handler: must be one of simulation, simulation-batch, simulation-unchecked, webhook/,
    );
    expect(bad([pair('a'), pair('b')])).toThrow(/^WORKER_CONSUMERS\[1\]\.name: "simulation" is taken by an earlier consumer/);
    expect(bad([{ ...pair('a'), retryPolicy: { maxAttempts: 0 } }])).toThrow(/^WORKER_CONSUMERS\[0\]\.retryPolicy: .*maxAttempts/);
    expect(bad([])).toThrow(/^WORKER_CONSUMERS: must list at least one consumer/);
    expect(bad([{ ...pair('a'), extra: 1 }])).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ WORKER_CONSUMERS: '[{' })).toThrow(/^WORKER_CONSUMERS: is not valid JSON/);
    expect(() => loadWorkerConfig({ WORKER_CONSUMERS: '/no/such/file.json' })).toThrow(/^WORKER_CONSUMERS: is neither JSON nor a readable file/);
  });

  it('refuses WORKER_CONSUMERS together with the single-queue variables', () => {
    expect(() => loadWorkerConfig({ WORKER_CONSUMERS: JSON.stringify([pair('a')]), WORKER_QUEUE_URL: 'https://q', WORKER_DLQ_URL: 'https://d' })).toThrow(
      /^WORKER_CONSUMERS: is set together with WORKER_QUEUE_URL\/WORKER_DLQ_URL; use one or the other/,
    );
  });
});
