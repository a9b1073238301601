import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { QueueWorkerFunction, RetryingQueue } from '@requeue/cdk';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';

const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const ENTRY = fileURLToPath(new URL('../support/lambda-entry/handler.ts', import.meta.url));

interface Synthesized {
  templatePath: string;
  bundle: string;
  handler: unknown;
}

/** A CDK app with the function bundled from its entry, synthesized as `cdk synth` does. */
function synthesize(handledLog: string): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'requeue-bundle-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'Hooks');
  const queues = new RetryingQueue(stack, 'Hooks', { queueName: 'hooks' });
  new QueueWorkerFunction(stack, 'Worker', {
    queue: queues.queue,
    deadLetterQueue: queues.deadLetterQueue,
    entry: ENTRY,
    environment: { HANDLED_LOG: handledLog },
    retryPolicy: { jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 } } } },
  });
  const assembly = app.synth();
  const template = assembly.getStackByName('Hooks').template as {
    Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string }; Handler?: string } }>;
  };
  const fn = Object.values(template.Resources).find(
    (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Handler?.startsWith('index.'),
  )!;
  const hash = fn.Properties.Code!.S3Key!.replace(/\.zip$/, '');
  return { templatePath: join(outdir, 'Hooks.template.json'), bundle: join(outdir, `asset.${hash}`, 'index.mjs'), handler: fn.Properties.Handler };
}

describe("QueueWorkerFunction bundles a handler entry, and `requeue local --invoke` runs the bundle on the stack's queue", () => {
  it('synthesizes one ES module holding the engine, which retries on the local queue as on Lambda', async () => {
    const handledLog = join(mkdtempSync(join(tmpdir(), 'requeue-handled-')), 'handled.log');
    const synthesized = synthesize(handledLog);
    expect(synthesized.handler).toBe('index.handler');
    const bundle = readFileSync(synthesized.bundle, 'utf8');
    // Everything inside: no import of requeue or of the SDK is left for the runtime to resolve.
    expect(bundle).not.toMatch(/from\s+["']@(requeue|aws-sdk)\//);
    expect(bundle).toContain('sqsHandler');

    const child = spawn(process.execPath, [CLI, 'local', '--template', synthesized.templatePath, '--port', '0', '--json', '--invoke'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const closed = once(child, 'close');
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const local = JSON.parse(line) as { endpoint: string; queues: Record<string, string> };
      const queueUrl = Object.entries(local.queues).find(([id]) => id.startsWith('HooksQueue'))![1];
      const sqs = new SQSClient({ endpoint: local.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      try {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ id: 'hook-1' }) }));
      } finally {
        sqs.destroy();
      }
      await eventually(
        () => (existsSync(handledLog) && readFileSync(handledLog, 'utf8').includes('hook-1 2') ? true : undefined),
        20_000,
        'the retried job to succeed',
      );
      // Both invocations reported everything done: the retry was a delayed copy, not a redelivery.
      expect(stderr).toContain(`Invoking ${synthesized.bundle} (handler) as WorkerFunction`);
      expect(stderr).toMatch(/as WorkerFunction\w+, 10 record\(s\) at most per call/);
      // Each invocation's line follows the delete of its records, after the handler's write.
      const done = () => stderr.match(/1 record\(s\) in \d+ ms; all done, deleted/g) ?? [];
      await eventually(() => (done().length >= 2 ? true : undefined), 10_000, 'both invocations reported');
      expect(done()).toHaveLength(2);
      child.kill('SIGINT');
      const [code] = await closed;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
