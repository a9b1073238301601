import { PublishCommand } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { readSimulationLedger } from '@requeue/local-aws/simulation-ledger';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEmulator, type Emulator, type QueuePair } from '../support/emulator.js';
import { freePort, TEST_RETRY_STATE_KEY } from '../support/worker-process.js';
import { runContainer, runOnce, type RunningContainer } from './container.js';
import { buildImage, dockerfileBase, imageBytes, synthesizeApp, type SynthesizedApp } from './image-build.js';

const TAG = 'localhost/requeue-worker:image-test';
const MB = 1024 * 1024;

/** What the worker never runs, and so must not ship: the CDK, the toolchain, the emulator. */
const NOT_SHIPPED = [
  'aws-cdk-lib',
  '@aws-cdk',
  'aws-cdk',
  'constructs',
  'cdk-nag',
  'typescript',
  'fauxqs',
  'vitest',
  // The emulator, the CDK app and the test support; the worker's own libraries are in its bundle.
  '@requeue',
];

/** Lists node_modules' packages, its size and its broken links, as the image's own user sees them. */
const INSPECT = String.raw`
cd /app
echo "uid $(id -u)"
echo "mb $(du -sm node_modules | cut -f1)"
for link in $(find node_modules apps -type l); do [ -e "$link" ] || echo "dangling $link"; done
for dir in node_modules/* node_modules/@*/*; do echo "package $dir"; done
for file in $(find apps -type f -name '*.js'); do echo "bundle $file"; done
`;

let app: SynthesizedApp;

beforeAll(async () => {
  app = await synthesizeApp();
  await buildImage(app.asset, TAG);
}, 20 * 60_000);

describe('the worker image, built as cdk deploy builds it', () => {
  it('holds the worker and its production dependencies only, runs as a non-root user, within the size targets', async () => {
    const inspected = await runOnce(TAG, ['sh', '-c', INSPECT]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const lines = inspected.stdout.trim().split('\n');
    const field = (key: string) => lines.filter((l) => l.startsWith(`${key} `)).map((l) => l.slice(key.length + 1));
    const packages = field('package').map((dir) => dir.replace(/^node_modules\//, ''));
    // What the bundle loads only when used: the tracing SDK, the optional stores' clients.
    expect(packages).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', '@redis/client', '@aws-sdk/client-dynamodb']));
    expect(packages.filter((name) => NOT_SHIPPED.some((banned) => name === banned || name.startsWith(`${banned}/`)))).toEqual([]);
    expect(field('bundle')).toEqual(['apps/worker/dist/bundle.js']);
    expect(field('dangling')).toEqual([]);
    expect(Number(field('uid')[0])).toBeGreaterThan(0);

    const nodeModulesMb = Number(field('mb')[0]);
    const addedMb = ((await imageBytes(TAG)) - (await imageBytes(dockerfileBase(app.asset)))) / MB;
    process.stdout.write(`image: node_modules ${nodeModulesMb} MB; image ${addedMb.toFixed(0)} MB over its base\n`);
    expect(nodeModulesMb).toBeLessThanOrEqual(150);
    expect(addedMb).toBeLessThanOrEqual(160);
  });

  it('says what to do, without a stack trace, when started with no queue URL outside production', async () => {
    const run = runContainer({ image: TAG, env: { NODE_ENV: 'development' } });
    try {
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain('this install has no embedded emulator');
      expect(run.output()).toContain('set WORKER_QUEUE_URL');
      expect(run.output()).not.toMatch(/^\s+at /m);
    } finally {
      await run.remove();
    }
  });
});

describe('the worker image on the emulator, with the stack task definition settings', () => {
  let emulator: Emulator;
  const containers: RunningContainer[] = [];
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterEach(async () => {
    await Promise.all(containers.splice(0).map((c) => c.remove()));
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  /** The task definition's environment, pointed at the emulator, with the simulation handler writing a ledger to a host folder. */
  async function startWorker(queues: QueuePair): Promise<{ worker: RunningContainer; ledger: string; healthPort: number }> {
    const folder = mkdtempSync(join(tmpdir(), 'requeue-image-ledger-'));
    // The image's user (uid 1000) writes here.
    chmodSync(folder, 0o777);
    const healthPort = await freePort();
    const worker = runContainer({
      image: TAG,
      env: {
        ...app.container.environment,
        WORKER_QUEUE_URL: queues.queueUrl,
        WORKER_DLQ_URL: queues.dlqUrl,
        AWS_ENDPOINT_URL: emulator.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        // The container shares the host's network here, where 8080 may be taken.
        WORKER_HEALTH_PORT: String(healthPort),
        WORKER_HANDLER: 'simulation',
        SIMULATION_LEDGER: '/ledger/ledger.jsonl',
        // The task definition passes this as a secret, which the template does not hold.
        WORKER_RETRY_STATE_KEYS: TEST_RETRY_STATE_KEY,
      },
      volumes: { [folder]: '/ledger' },
    });
    containers.push(worker);
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${healthPort}/health/ready`)).ok ? true : undefined),
      60_000,
      `the worker to be ready:\n${worker.output()}`,
    );
    return { worker, ledger: join(folder, 'ledger.jsonl'), healthPort };
  }

  const publish = (queues: QueuePair, id: string, simulate?: Record<string, unknown>) =>
    emulator.sns.send(new PublishCommand({ TopicArn: queues.topicArn, Message: JSON.stringify(simulate ? { id, simulate } : { id }) }));

  it('succeeds a message, retries one then succeeds it, dead-letters one with its reason; the ECS health check passes', async () => {
    const queues = await emulator.createQueues();
    const { worker, ledger, healthPort } = await startWorker(queues);

    // The stack's health check command, run inside the container, on the port it listens on here.
    const healthCheck = app.container.healthCheck.slice(1).map((arg) => arg.replace(':8080/', `:${healthPort}/`));
    expect(app.container.healthCheck[0]).toBe('CMD');
    const probe = await worker.exec(healthCheck);
    expect(probe.code, probe.stderr).toBe(0);

    await publish(queues, 'ok');
    await publish(queues, 'flaky', { outcome: 'transient', failTimes: 1 });
    await publish(queues, 'broken', { outcome: 'permanent' });

    const done = await eventually(
      () => (readSimulationLedger(ledger).length === 2 ? readSimulationLedger(ledger) : undefined),
      60_000,
      `two successes:\n${worker.output()}`,
    );
    expect(done.map((line) => [line.id, line.attempt]).sort()).toEqual([
      ['flaky', 2],
      ['ok', 1],
    ]);
    const dead = await eventually(
      async () =>
        (await emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.dlqUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }))).Messages?.[0],
      30_000,
      'the dead letter',
    );
    expect(JSON.parse(dead.Body!)).toMatchObject({ id: 'broken' });
    expect(JSON.parse(dead.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', attempts: 1 });
    // The handler writes its ledger line before the worker deletes the message: await the delete.
    await eventually(
      async () => {
        const depth = await emulator.depth(queues.queueUrl);
        return depth.visible + depth.inFlight + depth.delayed === 0 ? depth : undefined;
      },
      15_000,
      `an empty queue:\n${worker.output()}`,
    );
  });

  it('on SIGTERM with a handler in flight, lets it finish and exits 0 within the task definition stopTimeout', async () => {
    const queues = await emulator.createQueues();
    const { worker, ledger } = await startWorker(queues);
    await publish(queues, 'slow', { outcome: 'ok', durationMs: 4_000 });
    await eventually(async () => ((await emulator.depth(queues.queueUrl)).inFlight === 1 ? true : undefined), 30_000, 'the message to be in flight');

    const signalled = performance.now();
    await worker.signal('SIGTERM');
    expect(await worker.exited).toBe(0);
    const stopSeconds = (performance.now() - signalled) / 1000;
    process.stdout.write(`image: SIGTERM to exit ${stopSeconds.toFixed(1)} s (stopTimeout ${app.container.stopTimeoutSeconds} s)\n`);
    expect(stopSeconds).toBeLessThan(app.container.stopTimeoutSeconds);
    expect(readSimulationLedger(ledger).map((line) => line.id)).toEqual(['slow']);
    expect(await emulator.depth(queues.queueUrl)).toMatchObject({ visible: 0, inFlight: 0, delayed: 0 });
  });
});
