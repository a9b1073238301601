import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A script that runs the built package on the SQS fake with one message, stops the worker
 * once the message is deleted, and then has nothing left to do: its process should end.
 */
const SCRIPT = `
import { SqsWorker } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
const queueUrl = 'http://sqs.local/000000000000/jobs';
const fake = new MemorySqs({ queueUrl });
fake.add('{}');
const worker = new SqsWorker({ sqs: fake.client, queueUrl, deadLetterQueueUrl: queueUrl + '-dlq', handler: async () => undefined, waitTimeSeconds: 0, drainTimeoutMs: 60000, visibilityTimeoutSeconds: 30, maxReceiveCount: 5 });
worker.on('settled', () => void worker.stop().then(() => process.stdout.write('stopped\\n')));
await worker.start();
`;

describe('SqsWorker.stop', () => {
  it('leaves nothing behind that keeps the process alive: it exits at once, not after the drain timeout', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stoppedAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('stopped')) stoppedAt ??= Date.now();
    });
    // 'close', not 'exit': by then its stdout has been read.
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // The drain timeout is 60 s: a timer of it left running would hold the process that long.
    const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(resolve, 10_000, 'still running').unref())]);
    child.kill();
    expect(stoppedAt, 'the worker stopped').toBeDefined();
    expect(code, 'the process exited within 10 s of starting, its worker stopped').toBe(0);
  }, 20_000);
});
