import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSimulationLedger } from '@requeue/local-aws/simulation-ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDb, type LocalDynamoDb } from '../support/dynamodb.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { sendAll, simulation } from '../support/publish.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { emulatorSuite } from '../support/suite.js';
import { NOTHING_LISTENS, startWorkerProcess, waitUntilReady } from '../support/worker-process.js';

// Each test has its own queues (and store), and waits on the worker or on visibility timeouts: they run at once.
const suite = emulatorSuite({ concurrent: true });
let redis: RedisServer;
let dynamo: LocalDynamoDb;

beforeAll(async () => {
  [redis, dynamo] = await Promise.all([startRedis(), startDynamoDb()]);
}, 300_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), dynamo?.stop()]);
});

const ledgerPath = () => join(mkdtempSync(join(tmpdir(), 'requeue-ledger-')), 'ledger.jsonl');

const worker = (queues: QueuePair, ledger: string, env: Record<string, string>) =>
  suite.workerProcess(queues, { SIMULATION_LEDGER: ledger, WORKER_IDEMPOTENCY_KEY: 'body.id', ...env });

async function drained(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

describe.concurrent('the worker app with WORKER_IDEMPOTENCY', () => {
  it.each(['redis', 'dynamodb'] as const)('runs a job published 5 times once (%s store, key body.id)', async (store) => {
    const queues = await suite.emulator.createQueues();
    const ledger = ledgerPath();
    const env =
      store === 'redis'
        ? { WORKER_IDEMPOTENCY: redis.url }
        : { WORKER_IDEMPOTENCY: `dynamodb:${await dynamo.createIdempotencyTable()}`, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint };
    const started = await worker(queues, ledger, env);
    await waitUntilReady(started);
    await sendAll(suite.emulator.sqs, queues.queueUrl, [
      ...Array.from({ length: 5 }, () => simulation('job-1', { outcome: 'ok', durationMs: 50 })),
      simulation('job-2'),
    ]);
    await eventually(() => drained(queues), 30_000, 'the queue to drain');
    expect(
      readSimulationLedger(ledger)
        .map((line) => line.id)
        .sort(),
    ).toEqual(['job-1', 'job-2']);
    expect(await suite.emulator.depth(queues.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('is live but not ready while its store is unreachable, and runs nothing', async () => {
    const queues = await suite.emulator.createQueues();
    const ledger = ledgerPath();
    const started = await worker(queues, ledger, { WORKER_IDEMPOTENCY: NOTHING_LISTENS });
    const status = async (path: string) => (await fetch(`http://127.0.0.1:${started.healthPort}/health/${path}`).catch(() => undefined))?.status;
    await eventually(async () => ((await status('live')) === 200 ? true : undefined), 20_000, 'the worker to be live');
    await sendAll(suite.emulator.sqs, queues.queueUrl, [simulation('job-3')]);
    await eventually(async () => ((await status('ready')) === 503 ? true : undefined), 20_000, 'readiness to report the store');
    expect(readSimulationLedger(ledger)).toEqual([]);
    const depth = await suite.emulator.depth(queues.queueUrl);
    expect(depth.visible + depth.inFlight).toBe(1);
  });

  it('refuses a store it cannot use, naming the variable', async () => {
    const started = await startWorkerProcess({ WORKER_IDEMPOTENCY: 'memcached://127.0.0.1:11211' });
    suite.track(started);
    expect(await started.exited).toMatchObject({ code: 1 });
    expect(started.output()).toContain('WORKER_IDEMPOTENCY: must be off, redis://host:port or dynamodb:<table>');
  });
});
