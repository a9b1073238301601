import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { canaryRedrive, triageDeadLetters, type RedriveProgress } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import { runDlqCli } from '../support/dlq-cli.js';
import type { QueuePair } from '../support/emulator.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** Thirty dead letters, ten of them hidden for `seconds` as an interrupted triage or redrive leaves them. */
async function dlqAfterAnInterruptedRun(queues: QueuePair, seconds: number): Promise<void> {
  await sendAll(
    suite.emulator.sqs,
    queues.dlqUrl,
    Array.from({ length: 30 }, (_, i) => ({ body: JSON.stringify({ n: i }) })),
  );
  const out = await suite.emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: seconds }));
  expect(out.Messages).toHaveLength(10);
}

describe('the DLQ tools after a run that was interrupted (fauxqs)', () => {
  it('triage says how many letters were hidden before its read, and what to do', async () => {
    const queues = await suite.emulator.createQueues();
    await dlqAfterAnInterruptedRun(queues, 60);
    const result = await triageDeadLetters({ sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl });
    expect(result).toMatchObject({ total: 20, hiddenBefore: 10 });
    const cli = await runDlqCli(suite.emulator.endpoint, queues.dlqUrl, ['triage']);
    expect(cli.stdout).toMatch(
      /10 more dead letter\(s\) were hidden when the read began, so not read: an interrupted triage or redrive hides what it read for up to 120 s/,
    );
  }, 30_000);

  it('a rerun of redrive waits for the letters an interrupted run hid and sends them too', async () => {
    const queues = await suite.emulator.createQueues();
    await dlqAfterAnInterruptedRun(queues, 3);
    const progress: RedriveProgress[] = [];
    const result = await canaryRedrive(
      { sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl },
      {},
      { to: queues.queueUrl, canary: { percent: 100 }, watchMs: 500, resetAttempts: false, dryRun: false, onProgress: (p) => progress.push(p) },
    );
    expect(progress[0]).toMatchObject({ phase: 'waiting-for-hidden', hidden: 10 });
    expect(result).toMatchObject({ outcome: 'completed', matched: 30, sent: 30, hidden: { atStart: 10, stillHidden: 0 } });
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 0, inFlight: 0 });
  }, 30_000);

  it('a redrive that cannot wait long enough says how many it left hidden', async () => {
    const queues = await suite.emulator.createQueues();
    await dlqAfterAnInterruptedRun(queues, 60);
    const result = await canaryRedrive(
      { sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl },
      {},
      { to: queues.queueUrl, canary: { percent: 100 }, watchMs: 500, waitForHiddenMs: 1_000, resetAttempts: false, dryRun: false },
    );
    expect(result).toMatchObject({ outcome: 'completed', sent: 20, hidden: { atStart: 10, stillHidden: 10 } });
  }, 30_000);
});
