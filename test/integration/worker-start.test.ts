import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';
import { waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite({ concurrent: true });

/** The last line the worker wrote, which is the one an operator reads. */
const lastLine = (output: string) => output.trim().split('\n').at(-1) ?? '';

describe.concurrent('a worker whose consumers cannot start', () => {
  it('exits 1 within its start timeout with one line naming the consumer and what to do: a queue that does not exist', async () => {
    const queues = await suite.emulator.createQueues();
    // A URL with credentials in it: they appear in no line the worker writes.
    const missing = { ...queues, queueUrl: queues.queueUrl.replace('://', '://ops:hunter2@').replace(/[^/]+$/, 'no-such-queue') };
    const startedAt = Date.now();
    const worker = await suite.workerProcess(missing, { WORKER_START_TIMEOUT_MS: '2000' });
    expect((await worker.exited).code).toBe(1);
    // Two seconds, plus the boot: bounded, however long the queue stays missing.
    expect(Date.now() - startedAt).toBeLessThan(25_000);
    expect(lastLine(worker.output())).toBe(
      `requeue worker: no consumer could start in 2 s; simulation: queue ${missing.queueUrl.replace('ops:hunter2', '[redacted]')} does not exist: check its URL, and for an emulator AWS_ENDPOINT_URL and the region. Set WORKER_START_TIMEOUT_MS=0 to keep trying`,
    );
    expect(worker.output()).not.toContain('hunter2');
    // The attempts before are one line each, without a stack trace.
    expect(worker.output()).not.toMatch(/^\s+at /m);
  }, 30_000);

  it('says so when there are no credentials at all', async () => {
    const queues = await suite.emulator.createQueues();
    const home = mkdtempSync(join(tmpdir(), 'requeue-no-aws-'));
    const worker = await suite.workerProcess(queues, {
      WORKER_START_TIMEOUT_MS: '1000',
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
      // No instance metadata to ask, so that the chain gives up at once.
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    expect((await worker.exited).code).toBe(1);
    expect(lastLine(worker.output())).toMatch(
      /^requeue worker: no consumer could start in 1 s; simulation: no usable AWS credentials for .*: configure the standard chain/,
    );
  }, 30_000);

  it('keeps running the consumers that started, naming the one that did not, which keeps trying', async () => {
    const good = await suite.emulator.createQueues();
    const consumers = [
      { name: 'orders', queueUrl: good.queueUrl, dlqUrl: good.dlqUrl },
      { name: 'refunds', queueUrl: good.queueUrl.replace(/[^/]+$/, 'refunds-not-created'), dlqUrl: good.dlqUrl },
    ];
    const worker = await suite.workerProcess(good, {
      WORKER_QUEUE_URL: '',
      WORKER_DLQ_URL: '',
      WORKER_CONSUMERS: JSON.stringify(consumers),
      WORKER_START_TIMEOUT_MS: '1000',
    });
    await eventually(
      async () => (worker.output().includes('consumer refunds has not started in 1 s') ? true : undefined),
      20_000,
      'the failing consumer to be named',
    );
    expect(worker.output()).toContain('it keeps trying while orders run(s)');
    expect(worker.child.exitCode).toBeNull();
    const ready = await fetch(`http://127.0.0.1:${worker.healthPort}/health/ready`);
    expect(ready.status).toBe(503);
    const { consumers: health } = ((await ready.json()) as { details: Record<string, { consumers: Record<string, { ready: boolean; error?: string }> }> })
      .details['sqs-worker']!;
    expect(health.orders?.ready).toBe(true);
    expect(health.refunds?.error).toContain('does not exist');
  }, 30_000);

  it('on Ctrl-C while idle, says what it waits for and that a second Ctrl-C exits at once', async () => {
    const queues = await suite.emulator.createQueues();
    const worker = await suite.workerProcess(queues, { WORKER_WAIT_TIME_SECONDS: '2' });
    await waitUntilReady(worker);
    worker.child.kill('SIGINT');
    expect((await worker.exited).code).toBe(0);
    expect(worker.output()).toContain(
      'requeue worker: SIGINT: stopping; running handlers finish and open long polls return (up to 2 s, WORKER_WAIT_TIME_SECONDS); Ctrl-C again exits at once',
    );
  }, 30_000);
});
