import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { readSimulationLedger } from '@requeue/local-aws/simulation-ledger';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { startWorkerProcess, waitUntilReady, type WorkerProcess } from '../support/worker-process.js';

/** The recorder, as `tsc -b` compiles it (npm test builds first). */
const RECORDER = fileURLToPath(new URL('../dist/support/connection-log.js', import.meta.url));
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|unix:.*)$/;

const started: WorkerProcess[] = [];
afterEach(() => {
  for (const worker of started.splice(0)) worker.child.kill('SIGKILL');
});

describe('outbound connections', () => {
  it('a worker in local mode connects to nothing beyond loopback: no metadata-service probe, from start to shutdown', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'requeue-connections-'));
    const connections = join(folder, 'connections.log');
    const ledger = join(folder, 'ledger.jsonl');
    const worker = await startWorkerProcess({
      WORKER_EMULATOR_PORT: '0',
      WORKER_HANDLER: 'simulation',
      SIMULATION_LEDGER: ledger,
      NODE_OPTIONS: `--import=${pathToFileURL(RECORDER).href}`,
      CONNECTION_LOG: connections,
      WORKER_WAIT_TIME_SECONDS: '1',
    });
    started.push(worker);
    await waitUntilReady(worker, 30_000);
    const endpoint = /endpoint\s+(http:\/\/\S+)/.exec(worker.output())![1]!;
    const topicArn = /topic\s+(arn:\S+)/.exec(worker.output())![1]!;
    const sns = new SNSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    try {
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: JSON.stringify({ id: 'one', simulate: { outcome: 'transient', failTimes: 1 } }) }));
      await eventually(() => (readSimulationLedger(ledger).length === 1 ? true : undefined), 20_000, 'the message to succeed on its retry');
    } finally {
      sns.destroy();
    }
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);

    const hosts = readFileSync(connections, 'utf8').trim().split('\n');
    // The recorder saw the worker's own calls to the emulator...
    expect(hosts.length).toBeGreaterThan(0);
    // ...and nothing else.
    expect(hosts.filter((host) => !LOOPBACK.test(host))).toEqual([]);
  }, 60_000);
});
