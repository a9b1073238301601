import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requeueStackTemplate } from '@requeue/infra';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';
import { readSimulationLedger as readLedger } from '@requeue/local-aws/simulation-ledger';
import { sendAll, simulation } from '../support/publish.js';
import { startWorkerProcess, waitUntilReady, type WorkerProcess } from '../support/worker-process.js';

const suite = emulatorSuite({ concurrent: true });
const CLI = fileURLToPath(new URL('../../apps/cli/bin/requeue.mjs', import.meta.url));

function ledgerPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'requeue-ledger-')), 'ledger.jsonl');
}

async function worker(queues: QueuePair, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const started = await suite.workerProcess(queues, env);
  await waitUntilReady(started);
  return started;
}

describe.concurrent('worker app with no queue URLs (npm start)', () => {
  it('starts the embedded emulator provisioned from the stack template, and consumes what is published to the topic', async () => {
    const ledger = ledgerPath();
    // Port 0: the emulator binds any free port, and the banner names its endpoint.
    const started = await startWorkerProcess({ WORKER_EMULATOR_PORT: '0', WORKER_HANDLER: 'simulation', SIMULATION_LEDGER: ledger, LOG_LEVEL: 'info' });
    suite.track(started);
    await waitUntilReady(started, 30_000);
    const banner = started.output();
    const topicArn = /topic\s+(arn:\S+)/.exec(banner)?.[1];
    const queueUrl = /queue\s+(http\S+)/.exec(banner)?.[1];
    expect(queueUrl).toMatch(/\/Requeue-jobs$/);
    // Asked for port 0, the banner names the port the health server actually bound.
    // The publish command runs as pasted: it carries placeholder credentials.
    expect(banner).toContain(`AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local aws --endpoint-url http://127.0.0.1:`);
    const healthUrl = /health on (http:\/\/127\.0\.0\.1:[1-9]\d*\/health\/ready)/.exec(banner)?.[1];
    expect((await fetch(healthUrl!)).status).toBe(200);

    const endpoint = /endpoint\s+(http:\/\/127\.0\.0\.1:[1-9]\d*)/.exec(banner)?.[1];
    expect(endpoint).toBeDefined();
    const local = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
    const sqs = new SQSClient(local);
    const sns = new SNSClient(local);
    try {
      // The queue is the deployed one: the template's visibility, retention and redrive.
      const attributes = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes!;
      const template = requeueStackTemplate();
      const deployedQueue = Object.values(template.Resources).find((r) => r.Type === 'AWS::SQS::Queue' && r.Properties?.QueueName === 'Requeue-jobs')!;
      expect(Number(attributes.VisibilityTimeout)).toBe(deployedQueue.Properties!.VisibilityTimeout);
      expect(Number(attributes.MessageRetentionPeriod)).toBe(deployedQueue.Properties!.MessageRetentionPeriod);
      expect(JSON.parse(attributes.RedrivePolicy!).maxReceiveCount).toBe(
        (deployedQueue.Properties!.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount,
      );

      const published = await sns.send(
        new PublishCommand({ TopicArn: topicArn, Message: simulation('via-topic', { outcome: 'transient', failTimes: 1 }).body }),
      );
      const [success] = await eventually(() => (readLedger(ledger).length > 0 ? readLedger(ledger) : undefined), 20_000, 'the published message to succeed');
      expect(success).toMatchObject({ id: 'via-topic', attempt: 2 });
      // A retry that worked says so at info, under the id its failure was logged with.
      await eventually(() => (started.output().includes('done on attempt 2') ? true : undefined), 5000, 'the success to be logged');
      const done = started
        .output()
        .split('\n')
        .find((line) => line.includes('done on attempt 2'))!;
      expect(JSON.parse(done)).toMatchObject({ originalMessageId: success!.originalMessageId, attempt: 2 });
      // The stack delivers raw: the SNS envelope, and the id it would carry, are not sent.
      expect(published.MessageId).toBeDefined();
      expect(JSON.parse(done)).not.toHaveProperty('snsMessageId');
    } finally {
      sqs.destroy();
      sns.destroy();
    }
  });
});

describe.concurrent('worker app against the emulator', () => {
  it('through a topic without raw delivery, logs and lists each message under the id its publisher got from SNS', async () => {
    const queues = await suite.emulator.createQueues({ rawMessageDelivery: false });
    const started = await worker(queues, {
      LOG_LEVEL: 'info',
      RETRY_POLICY: JSON.stringify({ types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }),
    });
    const sns = new SNSClient({ endpoint: suite.emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    try {
      const flaky = await sns.send(
        new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('flaky', { outcome: 'transient', failTimes: 1 }).body }),
      );
      const broken = await sns.send(new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('broken', { outcome: 'permanent' }).body }));
      const line = (text: string) =>
        started
          .output()
          .split('\n')
          .find((l) => l.includes(text));
      await eventually(() => (line('done on attempt 2') && line('"dead-lettered"') ? true : undefined), 20_000, 'a retry done and a dead letter');
      expect(JSON.parse(line('handler failed; retrying')!)).toMatchObject({ snsMessageId: flaky.MessageId, attempt: 1 });
      expect(JSON.parse(line('done on attempt 2')!)).toMatchObject({ snsMessageId: flaky.MessageId, attempt: 2 });
      expect(JSON.parse(line('"dead-lettered"')!)).toMatchObject({ snsMessageId: broken.MessageId, reason: 'non-retryable' });
      const list = (...flags: string[]) =>
        promisify(execFile)(process.execPath, [CLI, 'dlq', 'list', ...flags, '--dlq', queues.dlqUrl], {
          env: { PATH: process.env.PATH, AWS_ENDPOINT_URL: suite.emulator.endpoint },
        });
      const [letter] = JSON.parse((await list('--json')).stdout) as Array<{ snsMessageId: string; originalMessageId: string }>;
      const firstDelivery = JSON.parse(line('"dead-lettered"')!) as { originalMessageId: string };
      expect(letter).toMatchObject({ snsMessageId: broken.MessageId, originalMessageId: firstDelivery.originalMessageId });
      // The table shows both beside the dead letter's own id: what the worker logged and what the publisher got.
      const [header, row] = (await list()).stdout.split('\n');
      expect(header).toMatch(/^id +first delivery id +sns id +reason/);
      expect(row).toContain(`${firstDelivery.originalMessageId}  ${broken.MessageId}  non-retryable`);
    } finally {
      sns.destroy();
    }
  });

  // The batch handler's form must end the same: the same successes, on the same attempts, the same dead letters.
  it.for(['simulation', 'simulation-batch'])(
    'black box (WORKER_HANDLER=%s): 1,000 messages end as exactly 900 ledger successes and 100 non-retryable dead letters',
    async (handler) => {
      const queues = await suite.emulator.createQueues();
      const ledger = ledgerPath();
      const expectedSuccess = new Set<string>();
      const expectedDead = new Set<string>();
      const messages = Array.from({ length: 1000 }, (_, i) => {
        const id = `bb-${i}`;
        if (i % 10 < 7) {
          expectedSuccess.add(id);
          return simulation(id);
        }
        if (i % 10 < 9) {
          expectedSuccess.add(id);
          return simulation(id, { outcome: 'transient', failTimes: 2 });
        }
        expectedDead.add(id);
        return simulation(id, { outcome: 'permanent' });
      });
      await sendAll(suite.emulator.sqs, queues.queueUrl, messages);
      await worker(queues, { SIMULATION_LEDGER: ledger, WORKER_HANDLER: handler });
      await eventually(() => (new Set(readLedger(ledger).map((l) => l.id)).size === 900 ? true : undefined), 60_000, '900 successes');
      const dead = await eventually(
        async () => {
          const depth = await suite.emulator.depth(queues.dlqUrl);
          return depth.visible === 100 ? suite.emulator.drain(queues.dlqUrl) : undefined;
        },
        30_000,
        '100 dead letters',
      );
      const succeeded = new Set(readLedger(ledger).map((l) => l.id));
      expect(succeeded).toEqual(expectedSuccess);
      const deadIds = new Set(dead.map((m) => (JSON.parse(m.Body!) as { id: string }).id));
      expect(deadIds).toEqual(expectedDead);
      for (const message of dead) {
        expect(JSON.parse(message.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', attempts: 1 });
      }
      const transientAttempts = readLedger(ledger)
        .filter((l) => Number(l.id.slice(3)) % 10 >= 7)
        .map((l) => l.attempt);
      expect(new Set(transientAttempts)).toEqual(new Set([3]));
      // 1,000 messages while the file's other tests run beside it.
    },
    90_000,
  );

  it('WORKER_CONSUMERS: one process drains two queues, each to its own DLQ, and /health/ready names both', async () => {
    const [first, second] = [await suite.emulator.createQueues(), await suite.emulator.createQueues()];
    const ledger = ledgerPath();
    await sendAll(suite.emulator.sqs, first.queueUrl, [
      simulation('a-1'),
      simulation('a-2', { outcome: 'transient', failTimes: 1 }),
      simulation('a-3', { outcome: 'permanent' }),
    ]);
    await sendAll(suite.emulator.sqs, second.queueUrl, [simulation('b-1'), simulation('b-2', { outcome: 'permanent' })]);
    const consumers = [
      {
        name: 'first',
        queueUrl: first.queueUrl,
        dlqUrl: first.dlqUrl,
        maxInFlight: 4,
        retryPolicy: { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } },
      },
      { name: 'second', queueUrl: second.queueUrl, dlqUrl: second.dlqUrl, maxInFlight: 2 },
    ];
    const started = await startWorkerProcess({
      WORKER_CONSUMERS: JSON.stringify(consumers),
      AWS_ENDPOINT_URL: suite.emulator.endpoint,
      WORKER_HANDLER: 'simulation',
      WORKER_WAIT_TIME_SECONDS: '1',
      SIMULATION_LEDGER: ledger,
    });
    suite.track(started);
    await waitUntilReady(started);
    await eventually(() => (new Set(readLedger(ledger).map((l) => l.id)).size === 3 ? true : undefined), 20_000, 'three successes');
    await eventually(
      async () => ((await suite.emulator.depth(first.dlqUrl)).visible === 1 && (await suite.emulator.depth(second.dlqUrl)).visible === 1 ? true : undefined),
      20_000,
      'one dead letter in each DLQ',
    );
    expect(new Set(readLedger(ledger).map((l) => l.id))).toEqual(new Set(['a-1', 'a-2', 'b-1']));
    const health = (await (await fetch(`http://127.0.0.1:${started.healthPort}/health/ready`)).json()) as {
      info: Record<string, { consumers: Record<string, { ready: boolean }> }>;
    };
    expect(Object.keys(health.info['sqs-worker']!.consumers).sort()).toEqual(['first', 'second']);
  });
});

// One at a time, after the others: these time how soon a signalled worker lets go, which
// the other tests' workers starting beside it would slow.
describe('worker app on SIGTERM', () => {
  it('SIGTERM with a full prefetch: the prefetched messages are visible again within 1 s while the running ones finish; nothing lost, nothing twice', async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 60 });
    const ledger = ledgerPath();
    const ids = Array.from({ length: 30 }, (_, i) => `pre-${i}`);
    await sendAll(
      suite.emulator.sqs,
      queues.queueUrl,
      ids.map((id) => simulation(id, { outcome: 'ok', durationMs: 2000 })),
    );
    const first = await worker(queues, { SIMULATION_LEDGER: ledger, WORKER_MAX_IN_FLIGHT: '5', WORKER_PREFETCH: '5', WORKER_DRAIN_TIMEOUT_MS: '10000' });
    // Five running and five prefetched, hidden; the rest visible.
    await eventually(async () => ((await suite.emulator.depth(queues.queueUrl)).inFlight === 10 ? true : undefined), 10_000, '10 held');
    first.child.kill('SIGTERM');
    const signalled = Date.now();
    await eventually(async () => ((await suite.emulator.depth(queues.queueUrl)).inFlight === 5 ? true : undefined), 5_000, 'the prefetched five released');
    expect(Date.now() - signalled).toBeLessThan(1000);
    const { code } = await first.exited;
    expect(code).toBe(0);
    // The five running finished during the drain; the prefetched five never started.
    expect(readLedger(ledger)).toHaveLength(5);
    await worker(queues, { SIMULATION_LEDGER: ledger, WORKER_MAX_IN_FLIGHT: '30' });
    await eventually(() => (readLedger(ledger).length >= 30 ? true : undefined), 20_000, 'all 30 to finish');
    expect(
      readLedger(ledger)
        .map((l) => l.id)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('loses nothing on SIGTERM mid-work: unfinished messages are released at once and finish later, exactly once', async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 60 });
    const ledger = ledgerPath();
    const ids = Array.from({ length: 20 }, (_, i) => `term-${i}`);
    await sendAll(
      suite.emulator.sqs,
      queues.queueUrl,
      ids.map((id) => simulation(id, { outcome: 'ok', durationMs: 3000 })),
    );
    const first = await worker(queues, { SIMULATION_LEDGER: ledger, WORKER_DRAIN_TIMEOUT_MS: '300' });
    await eventually(async () => ((await suite.emulator.depth(queues.queueUrl)).inFlight === 20 ? true : undefined), 10_000, 'all 20 in flight');
    first.child.kill('SIGTERM');
    const { code } = await first.exited;
    expect(code).toBe(0);
    // Released with visibility 0, not left hidden for the 60 s visibility timeout.
    expect(await suite.emulator.depth(queues.queueUrl)).toMatchObject({ visible: 20, inFlight: 0 });
    expect(readLedger(ledger)).toHaveLength(0);
    await worker(queues, { SIMULATION_LEDGER: ledger });
    await eventually(() => (readLedger(ledger).length >= 20 ? true : undefined), 20_000, 'all 20 to finish');
    expect(
      readLedger(ledger)
        .map((l) => l.id)
        .sort(),
    ).toEqual([...ids].sort());
  });
});
