import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { encodeDeadLetterRecord } from '@requeue/retry/engine';
import { triageDeadLetters } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import type { QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';
import { startWorkerWithDashboard } from '../support/dashboard-worker.js';

const suite = emulatorSuite();

/** The DLQ's limit less room for the body and the record's other fields. */
const ONE_MIB_ERROR = 1_040_000;

/** A dead letter anyone who can write to the DLQ could send: its error `a.a.a.…`, the shape that made the fingerprint's patterns quadratic. */
async function forgeDeadLetter(queues: QueuePair, errorLength: number): Promise<void> {
  const now = Date.now();
  const record = {
    reason: 'non-retryable' as const,
    errorType: 'FORGED',
    error: 'a.'.repeat(errorLength / 2),
    attempts: 1,
    firstReceivedAt: now,
    deadLetteredAt: now,
    sourceQueue: queues.queueUrl,
    originalMessageId: 'x',
  };
  await suite.emulator.sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.dlqUrl,
      MessageBody: '{}',
      MessageAttributes: { 'x-dead-letter': { DataType: 'String', StringValue: encodeDeadLetterRecord(record) } },
    }),
  );
}

describe('dead letters with huge crafted error texts (fauxqs)', () => {
  it('triage reads a 256 KB and a 1 MiB error in milliseconds, and cuts what it shows', async () => {
    const queues = await suite.emulator.createQueues();
    for (const length of [256 * 1024, ONE_MIB_ERROR]) {
      await forgeDeadLetter(queues, length);
      const started = performance.now();
      const result = await triageDeadLetters({ sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl });
      const ms = performance.now() - started;
      console.info(`triage of a dead letter with a ${length}-character error: ${ms.toFixed(0)} ms`);
      // Before the fix, 256 KB took 274 s. The bound is loose: a loaded machine must pass it.
      expect(ms).toBeLessThan(5_000);
      expect(result.groups[0]!.fingerprint.length).toBeLessThanOrEqual(200);
      expect(result.groups[0]!.example.error!.length).toBeLessThan(2_200);
    }
  }, 60_000);

  it("the local dashboard's scan of them leaves /health/live answering at once", async () => {
    const queues = await suite.emulator.createQueues();
    for (let i = 0; i < 5; i++) await forgeDeadLetter(queues, ONE_MIB_ERROR);
    const { worker, base, token } = await startWorkerWithDashboard(suite.emulator, queues, (started) => suite.track(started));
    let scanning = true;
    const latencies: number[] = [];
    const probe = (async () => {
      while (scanning) {
        const started = performance.now();
        await fetch(`http://127.0.0.1:${worker.healthPort}/health/live`);
        latencies.push(performance.now() - started);
      }
    })();
    const rows = (await (await fetch(`${base}/api/dead-letters`, { headers: { 'x-requeue-token': token } })).json()) as unknown[];
    scanning = false;
    await probe;
    const worst = Math.max(...latencies);
    console.info(`/health/live during the dashboard's scan of 5 dead letters with 1 MiB errors: ${latencies.length} probes, worst ${worst.toFixed(0)} ms`);
    expect(rows).toHaveLength(5);
    // Before the fix it did not answer for 49 s.
    expect(worst).toBeLessThan(1_000);
  }, 60_000);
});
