import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRetryPolicy } from '@requeue/retry';
import { SqsWorker } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually, startEmulator } from '../support/emulator.js';

describe('emulator restart mid-run', () => {
  it('backs off while SQS is unreachable, reports not-ready, and resumes on its own', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'requeue-fauxqs-'));
    // Any free port at first; the restart takes the same one back.
    const first = await startEmulator({ dataDir });
    const { port } = first;
    const queues = await first.createQueues();
    const handled: string[] = [];
    const warnings: string[] = [];
    const worker = new SqsWorker({
      sqs: first.sqs,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.dlqUrl,
      handler: async ({ rawBody }) => void handled.push(rawBody),
      retryPolicy: createRetryPolicy(),
      waitTimeSeconds: 1,
      maxInFlight: 10,
      pollBackoff: { initialMs: 50, maxMs: 400 },
      logger: { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_fields, message) => void warnings.push(message) },
    });
    const pollErrors: number[] = [];
    worker.on('pollError', ({ consecutiveFailures }) => pollErrors.push(consecutiveFailures));
    await worker.start();
    try {
      await first.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'before' }));
      await eventually(() => (handled.includes('before') ? true : undefined), 10_000, 'the first message');

      await first.server.stop();
      await eventually(() => (worker.health().ready ? undefined : true), 15_000, 'not-ready during the outage');
      // A sustained outage: at least 8 receives failed in a row, each backed off, and the worker is still live.
      await eventually(() => (Math.max(0, ...pollErrors) >= 8 ? true : undefined), 15_000, 'eight failed receives in a row');
      expect(worker.health().live).toBe(true);
      const outageWarnings = warnings.filter((w) => w.includes('receive failed')).length;
      const failedReceives = Math.max(...pollErrors);

      const second = await startEmulator({ port, dataDir });
      await second.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'after' }));
      await eventually(() => (handled.includes('after') ? true : undefined), 20_000, 'a message after the restart');
      expect(worker.health().ready).toBe(true);
      // Logged on the 1st, 2nd, 4th, 8th... failure: a handful of lines, not one per poll.
      expect(outageWarnings).toBeGreaterThanOrEqual(4);
      expect(outageWarnings).toBeLessThanOrEqual(Math.floor(Math.log2(failedReceives)) + 1);
      await worker.stop({ drainTimeoutMs: 0 });
      await second.stop();
    } finally {
      await worker.stop({ drainTimeoutMs: 0 });
    }
  }, 60_000);
});
