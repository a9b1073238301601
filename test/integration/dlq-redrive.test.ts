import { SendMessageCommand, SQSClient, type SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { NonRetryableError } from '@requeue/retry';
import { encodeDeadLetterRecord } from '@requeue/retry/engine';
import type { MessageHandler } from '@requeue/sqs';
import { canaryRedrive } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import { CORPUS_RETRY_KEY, deadLetterCorpus, loadDeadLetters } from '../support/dead-letter-corpus.js';
import { runDlqCli } from '../support/dlq-cli.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

interface Group {
  id: string;
  count: number;
  errorType: string;
}
interface Redrive {
  outcome: string;
  matched: number;
  canary: number;
  sent: number;
  failed: number;
  failureShare: number;
  untouched: number;
  rate: { set: number; achieved: number | null };
  elapsedMs: number;
  failures: Array<{ reason: string; errorType: string }>;
}

/** One handled job: which dead letter it was, and the history it arrived with. */
interface Handled {
  cause: number;
  n: number;
  attempt: number;
  idempotencyKey: string;
}

/**
 * The worker after an incident: payments (cause 1) still rejects every fifth charge; the
 * validation bug (cause 3) is fixed. Everything else succeeds.
 */
function afterTheIncident(handled: Handled[]): MessageHandler<unknown> {
  return async (message) => {
    const { cause, n } = message.body as { cause: number; n: number };
    if (cause === 1 && n % 5 === 0) throw new NonRetryableError(`POST https://api.pay.example/v1/charges/ch_${n}: 400 (still)`, { errorType: 'HTTP_4XX' });
    handled.push({ cause, n, attempt: message.attempt, idempotencyKey: message.idempotencyKey });
  };
}

/**
 * Dead letters per cause: fewer than triage's 10,000, since what is tested here is the
 * canary and the rate, not the scan. Validation keeps 1,000: 10 s at 100/s, a rate measured
 * within 2%; payments keeps a canary of 50, a fifth of which still fails. At 200/s the
 * redrive reached 127-163/s while the suite's heaviest files ran beside it: the emulator
 * and the worker taking the redriven messages share this process's event loop.
 */
const COUNTS = [300, 1_000, 200, 1_000, 100];
const TOTAL = COUNTS.reduce((sum, n) => sum + n, 0);
const [PAYMENTS, VALIDATION] = [COUNTS[1]!, COUNTS[3]!];
const CANARY = Math.ceil(PAYMENTS * 0.05);

describe('requeue dlq redrive (on the emulator)', () => {
  it('halts a redrive whose cause still fails within its canary, and completes a fixed cause at the set rate with nothing lost or run twice', async () => {
    const queues = await suite.emulator.createQueues();
    await loadDeadLetters(suite.emulator.sqs, queues.dlqUrl, deadLetterCorpus(queues.queueUrl, COUNTS));
    const dlq = (...args: string[]) => runDlqCli(suite.emulator.endpoint, queues.dlqUrl, args, { WORKER_RETRY_STATE_KEYS: CORPUS_RETRY_KEY });
    const triage = async () => JSON.parse((await dlq('triage', '--json')).stdout) as { total: number; groups: Group[] };
    const groups = (await triage()).groups;
    const payments = groups.find((g) => g.errorType === 'HTTP_4XX')!;
    const validation = groups.find((g) => g.errorType === 'VALIDATION')!;

    expect(await dlq('redrive')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--group .*--all/) });
    expect(await dlq('redrive', '--group', payments.id, '--canary', '0')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--canary takes/) });
    const dry = JSON.parse((await dlq('redrive', '--group', payments.id, '--dry-run', '--json')).stdout) as Redrive;
    expect(dry).toMatchObject({ outcome: 'dry-run', matched: PAYMENTS, canary: CANARY, sent: 0 });

    const handled: Handled[] = [];
    const loggedGroups: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (fields: { deadLetterGroup?: string }) => void (fields.deadLetterGroup && loggedGroups.push(fields.deadLetterGroup)),
    };
    await suite.engine(
      queues,
      afterTheIncident(handled) as MessageHandler,
      { maxAttempts: 5 },
      { retryStateKeys: [CORPUS_RETRY_KEY], maxInFlight: 20, logger },
    );

    // 1. Payments still rejects 20%: the canary (5% of its dead letters) sees it, and the redrive stops there.
    const halted = await dlq('redrive', '--group', payments.id, '--json');
    expect(halted.code).toBe(1);
    const stopped = JSON.parse(halted.stdout) as Redrive;
    console.info(`halted redrive: ${JSON.stringify({ ...stopped, failures: stopped.failures.length })}`);
    expect(stopped).toMatchObject({ outcome: 'halted', canary: CANARY, sent: CANARY });
    expect(stopped.failureShare).toBeGreaterThanOrEqual(0.1);
    expect(stopped.failures.every((f) => f.reason === 'non-retryable' && f.errorType === 'HTTP_4XX')).toBe(true);
    expect(stopped.untouched).toBe(PAYMENTS - CANARY);
    // Only the canary reached the handler; the rest of the cause is in the DLQ as it was.
    expect(handled.filter((h) => h.cause === 1)).toHaveLength(CANARY - stopped.failed);
    const afterHalt = await triage();
    expect(afterHalt.groups.find((g) => g.id === payments.id)!.count).toBe(PAYMENTS - CANARY);
    expect(afterHalt.total).toBe(TOTAL - CANARY + stopped.failed);
    // The worker logged each dead-lettering under the group triage now finds it in (what the log query groups by).
    const returned = afterHalt.groups.find((g) => !groups.some((before) => before.id === g.id))!;
    expect(returned.count).toBe(stopped.failed);
    expect(loggedGroups).toEqual(Array.from({ length: stopped.failed }, () => returned.id));

    // 2. The validation bug is fixed: all of it goes back at 100/s.
    const done = await dlq('redrive', '--group', validation.id, '--rate', '100/s', '--json');
    expect(done.code).toBe(0);
    const completed = JSON.parse(done.stdout) as Redrive;
    console.info(`fixed-cause redrive: ${JSON.stringify({ ...completed, failures: completed.failures.length })}`);
    expect(completed).toMatchObject({ outcome: 'completed', matched: VALIDATION, sent: VALIDATION, failed: 0, untouched: 0 });
    expect(completed.rate.achieved!).toBeGreaterThan(100 * 0.8);
    expect(completed.rate.achieved!).toBeLessThanOrEqual(100 * 1.02);
    const fixed = handled.filter((h) => h.cause === 3);
    // 0 lost, 0 run twice; each kept its history (attempt 4 of the signed x-retry's 3) and its identity.
    expect(fixed).toHaveLength(VALIDATION);
    expect(new Set(fixed.map((h) => h.n)).size).toBe(VALIDATION);
    expect(fixed.every((h) => h.attempt === 4 && h.idempotencyKey === `m-3-${h.n}`)).toBe(true);
    const afterFix = await triage();
    expect(afterFix.groups.find((g) => g.id === validation.id)).toBeUndefined();
    expect(afterFix.total).toBe(afterHalt.total - VALIDATION);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ inFlight: 0 });
  }, 300_000);

  it("keeps a redriven message's tenant (its message group on a fair queue) and its own attributes", async () => {
    const queues = await suite.emulator.createQueues();
    const record = {
      reason: 'non-retryable' as const,
      errorType: 'HTTP_4XX',
      error: '400',
      attempts: 1,
      firstReceivedAt: Date.now(),
      deadLetteredAt: Date.now(),
      sourceQueue: queues.queueUrl,
      originalMessageId: 'm-acme',
      messageGroupId: 'acme',
    };
    await suite.emulator.sqs.send(
      new SendMessageCommand({
        QueueUrl: queues.dlqUrl,
        MessageBody: '{"id":"acme-1"}',
        MessageAttributes: {
          'x-dead-letter': { DataType: 'String', StringValue: encodeDeadLetterRecord(record) },
          region: { DataType: 'String', StringValue: 'eu' },
        },
      }),
    );
    // fauxqs keeps no MessageGroupId on a standard queue (SQS fair queues do): what the
    // redrive sent is read off the real client's requests instead.
    const sent: SendMessageBatchCommandInput[] = [];
    const sqs = new SQSClient({ endpoint: suite.emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    sqs.middlewareStack.add((next, context) => async (args) => {
      if (context.commandName === 'SendMessageBatchCommand') sent.push(args.input as SendMessageBatchCommandInput);
      return next(args);
    });
    // No worker: the watch ends at watchMs, and the message waits in the queue to be read here.
    const result = await canaryRedrive({ sqs, dlqUrl: queues.dlqUrl }, {}, { canary: { count: 1 }, watchMs: 2_000, resetAttempts: false, dryRun: false });
    sqs.destroy();
    expect(result).toMatchObject({ outcome: 'completed', sent: 1, failed: 0 });
    expect(sent.flatMap((batch) => batch.Entries ?? []).map((entry) => entry.MessageGroupId)).toEqual(['acme']);
    const [redriven] = await suite.emulator.drain(queues.queueUrl);
    expect(redriven!.Body).toBe('{"id":"acme-1"}');
    expect(redriven!.MessageAttributes?.region?.StringValue).toBe('eu');
  });

  it('keeps its rate when every SQS call takes 60 ms: the batches overlap rather than wait on each other', async () => {
    const queues = await suite.emulator.createQueues();
    const LETTERS = 300;
    await loadDeadLetters(suite.emulator.sqs, queues.dlqUrl, deadLetterCorpus(queues.queueUrl, [0, 0, 0, LETTERS, 0]));
    // A region's round trip and more: one batch at a time (a send, the DLQ's delete, the
    // watch's receive) would reach about 60 a second.
    const sqs = new SQSClient({ endpoint: suite.emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    sqs.middlewareStack.add((next) => async (args) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return next(args);
    });
    // No worker: what went back is counted in the queue.
    const result = await canaryRedrive(
      { sqs, dlqUrl: queues.dlqUrl },
      {},
      { canary: { count: 10 }, ratePerSecond: 100, watchMs: 500, resetAttempts: false, dryRun: false },
    );
    sqs.destroy();
    expect(result).toMatchObject({ outcome: 'completed', sent: LETTERS, failed: 0 });
    expect(result.rate.achieved!).toBeGreaterThan(100 * 0.85);
    expect(result.rate.achieved!).toBeLessThanOrEqual(100 * 1.02);
    expect(await suite.emulator.depth(queues.queueUrl)).toMatchObject({ visible: LETTERS });
  }, 60_000);

  it('redrives a FIFO DLQ in group order, the later letters of each group as they show', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true, maxReceiveCount: 30 });
    const letters = ['a', 'b', 'c'].flatMap((group) => Array.from({ length: 12 }, (_, n) => ({ group, n })));
    for (const letter of letters) {
      const fields = { MessageGroupId: letter.group, MessageDeduplicationId: `${letter.group}-${letter.n}` };
      await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.dlqUrl, MessageBody: JSON.stringify(letter), ...fields }));
    }
    const seen: Array<{ group: string; n: number }> = [];
    await suite.engine(queues, async (message) => void seen.push(message.body as { group: string; n: number }));
    const result = await dlq('redrive', '--all', '--to', queues.queueUrl, '--canary', '6', '--rate', '100/s', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'completed', matched: 36, sent: 36, failed: 0 });
    // The emulator, as SQS, shows a group's next letter only once the one before is gone.
    expect(result.stderr).toMatch(/^canary: 6 sent, 0 came back$/m);
    for (const group of ['a', 'b', 'c']) expect(seen.filter((s) => s.group === group).map((s) => s.n)).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 0, inFlight: 0 });

    function dlq(...args: string[]) {
      return runDlqCli(suite.emulator.endpoint, queues.dlqUrl, args);
    }
  }, 120_000);
});
