import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { requeueStackTemplate } from '@requeue/infra';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);

/** A CDK app's folder after `cdk synth`: cdk.out with the stack's template. */
function synthesizedApp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'requeue-local-'));
  mkdirSync(join(dir, 'cdk.out'));
  writeFileSync(join(dir, 'cdk.out', 'Requeue.template.json'), JSON.stringify(requeueStackTemplate()));
  return dir;
}

interface LocalDocument {
  endpoint: string;
  env: Record<string, string>;
  queues: Record<string, string>;
  outputs: Record<string, string>;
  containers: Array<{ container: string; environment: Record<string, string>; notLocal: string[] }>;
}

describe('npx requeue local', () => {
  it('provisions the stack in ./cdk.out on 127.0.0.1, prints the queues, the endpoint line and the worker environment, and stops on Ctrl-C', async () => {
    const cwd = synthesizedApp();
    const child = spawn(process.execPath, [CLI, 'local', '--port', '0', '--json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const closed = once(child, 'close');
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const local = JSON.parse(line) as LocalDocument;
      expect(local.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(local.env).toEqual({ AWS_ENDPOINT_URL: local.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
      const worker = local.containers.find((c) => c.environment.WORKER_QUEUE_URL !== undefined);
      expect(worker?.environment.WORKER_QUEUE_URL).toBe(local.outputs.QueueUrl);
      expect(worker?.environment.WORKER_DLQ_URL).toBe(local.outputs.DLQUrl);
      expect(worker?.notLocal).toContain('WORKER_RETRY_STATE_KEYS');
      // Every URL addresses the endpoint: a name under .localhost does not resolve everywhere.
      expect(Object.values(local.queues).every((url) => url.startsWith(`${local.endpoint}/`))).toBe(true);
      // The queue is real on the emulator, with the template's redrive to its DLQ.
      const sqs = new SQSClient({ endpoint: local.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      try {
        const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: local.outputs.QueueUrl, AttributeNames: ['RedrivePolicy'] }));
        expect(JSON.parse(Attributes!.RedrivePolicy!).maxReceiveCount).toBeGreaterThan(0);
        await sqs.send(new SendMessageCommand({ QueueUrl: local.outputs.QueueUrl, MessageBody: '{}' }));
      } finally {
        sqs.destroy();
      }
      child.kill('SIGINT');
      const [code] = await closed;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('says what to do when there is no template, and refuses a bad port', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'requeue-local-'));
    await expect(run(process.execPath, [CLI, 'local'], { cwd: empty })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('run `npx cdk synth`'),
    });
    await expect(run(process.execPath, [CLI, 'local', '--port', 'http'], { cwd: synthesizedApp() })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--port takes a port'),
    });
    await expect(run(process.execPath, [CLI, 'local', '--template', join(empty, 'nope.json')], { cwd: empty })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('cannot read the template'),
    });
    await expect(run(process.execPath, [CLI, 'local', '--file', 'dist/handler.js'], { cwd: synthesizedApp() })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--file goes with --invoke'),
    });
    await expect(run(process.execPath, [CLI, 'local', '--port', '0', '--invoke'], { cwd: synthesizedApp() })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--invoke needs a Lambda function with an SQS event source in the template (QueueWorkerFunction)'),
    });
  });
});
