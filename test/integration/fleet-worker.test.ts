import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { readSimulationLedger } from '@requeue/local-aws/simulation-ledger';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { sendAll, simulation } from '../support/publish.js';
import { redisForSuite } from '../support/redis.js';
import { emulatorSuite } from '../support/suite.js';
import { NOTHING_LISTENS, waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite();
const redisServer = redisForSuite();

const ledgerPath = () => join(mkdtempSync(join(tmpdir(), 'requeue-ledger-')), 'ledger.jsonl');

/** Jobs whose dependency rate-limits once each: enough for it to push back, so the worker talks to the fleet. */
const rateLimitedOnce = (count: number) =>
  Array.from({ length: count }, (_, i) => simulation(`job-${i}`, { outcome: 'rate_limit', failTimes: 1, retryAfterMs: 300 }));

async function drained(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

describe('the worker app with WORKER_FLEET_STATE', () => {
  it('reports to the fleet in Redis while its dependency pushes back, and finishes every job', async () => {
    const queues = await suite.emulator.createQueues();
    const ledger = ledgerPath();
    const started = await suite.workerProcess(queues, { SIMULATION_LEDGER: ledger, WORKER_FLEET_STATE: redisServer().url });
    await waitUntilReady(started);
    const client = createClient({ url: redisServer().url });
    await client.connect();
    try {
      await sendAll(suite.emulator.sqs, queues.queueUrl, rateLimitedOnce(20));
      const reports = await eventually(
        async () => {
          const keys = await client.keys('requeue:fleet:*');
          const fields = keys.length > 0 ? await client.hGetAll(keys[0]!) : {};
          return Object.keys(fields).length > 0 ? Object.values(fields).map((json) => JSON.parse(json) as { workerId: string }) : undefined;
        },
        20_000,
        'a report in Redis',
      );
      expect(reports[0]!.workerId).toMatch(/-\d+\/simulation$/);
      await eventually(() => drained(queues), 30_000, 'the queue to drain');
      expect(new Set(readSimulationLedger(ledger).map((line) => line.id)).size).toBe(20);
    } finally {
      await client.close();
    }
  });

  it('goes on alone, ready, when the store is unreachable, and says so once', async () => {
    const queues = await suite.emulator.createQueues();
    const ledger = ledgerPath();
    const started = await suite.workerProcess(queues, { SIMULATION_LEDGER: ledger, WORKER_FLEET_STATE: NOTHING_LISTENS });
    await waitUntilReady(started);
    await sendAll(suite.emulator.sqs, queues.queueUrl, rateLimitedOnce(20));
    await eventually(() => drained(queues), 30_000, 'the queue to drain');
    expect(new Set(readSimulationLedger(ledger).map((line) => line.id)).size).toBe(20);
    expect((await fetch(`http://127.0.0.1:${started.healthPort}/health/ready`)).status).toBe(200);
    expect(started.output().match(/fleet store unreachable/g)).toHaveLength(1);
    expect(await suite.emulator.depth(queues.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });
});
