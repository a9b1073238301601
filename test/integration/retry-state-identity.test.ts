import { ReceiveMessageCommand, SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { NonRetryableError, RetryableError } from '@requeue/retry';
import { RetryStateSigner } from '@requeue/retry/engine';
import type { WorkerMessage } from '@requeue/sqs';
import { replayDeadLetters } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const OLD_KEY = 'old-retry-state-key-0123456789abcdef';
const NEW_KEY = 'new-retry-state-key-0123456789abcdef';

interface Call {
  body: string;
  key: string;
  attempt: number;
  by: string;
}

/** Records each call; a body named `fail-<n>` fails its first n attempts, `victim` fails its first one for good. */
function recordingHandler(calls: Call[], by: string) {
  return async (message: WorkerMessage) => {
    calls.push({ body: message.rawBody, key: message.idempotencyKey, attempt: message.attempt, by });
    const failing = /^fail-(\d+)/.exec(message.rawBody);
    if (failing && message.attempt <= Number(failing[1])) throw new RetryableError('the dependency timed out', { errorType: 'TEMPORARY' });
    if (message.rawBody === 'victim' && calls.filter((call) => call.body === 'victim').length === 1)
      throw new NonRetryableError('declined', { errorType: 'DECLINED' });
  };
}

async function deadLetterOf(queues: QueuePair): Promise<Record<string, MessageAttributeValue>> {
  const out = await suite.emulator.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queues.dlqUrl, MaxNumberOfMessages: 1, MessageAttributeNames: ['All'], VisibilityTimeout: 0 }),
  );
  return (out.Messages?.[0]?.MessageAttributes ?? {}) as Record<string, MessageAttributeValue>;
}

const FAST = { types: { TEMPORARY: { backoff: { type: 'fixed' as const, delayMs: 1000 } } } };

describe('signed x-retry against the writers of the DLQ, and through a key rotation (fauxqs)', () => {
  it('replay keeps a genuine identity, and gives its own to a state a DLQ writer forged or moved onto another body', async () => {
    const queues = await suite.emulator.createQueues();
    const calls: Call[] = [];
    const keys = { retryStateKeys: [OLD_KEY] };
    await suite.engine(queues, recordingHandler(calls, 'worker'), FAST, keys);
    await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'victim' }));
    await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 1 ? true : undefined), 15_000, 'the victim dead-lettered');
    const victimKey = calls[0]!.key;
    const genuine = await deadLetterOf(queues);

    // A DLQ writer: the victim's genuine signed state on its own body, and a state it wrote naming another identity.
    const forged = JSON.stringify({ v: 1, attempt: 1, firstReceivedAt: Date.now() - 1000, originalMessageId: 'order-4711-victim' });
    for (const [body, xRetry] of [
      ['moved', genuine['x-retry']!.StringValue!],
      ['forged', forged],
    ]) {
      await suite.emulator.sqs.send(
        new SendMessageCommand({ QueueUrl: queues.dlqUrl, MessageBody: body, MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: xRetry } } }),
      );
    }
    const result = await replayDeadLetters(
      { sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl },
      {},
      { to: queues.queueUrl, resetAttempts: false, dryRun: false, signer: new RetryStateSigner([OLD_KEY]) },
    );

    expect(result.replayed).toHaveLength(3);
    const own = result.replayed.filter((replayed) => replayed.ownIdentity !== undefined);
    expect(own).toHaveLength(2);
    expect(own[0]!.ownIdentity).toMatch(/does not verify with WORKER_RETRY_STATE_KEYS: it goes back as its own message/);
    await eventually(() => (calls.length === 4 ? true : undefined), 15_000, `every replayed letter to run: ${JSON.stringify(calls)}`);
    const keyOf = (body: string) => calls.filter((call) => call.body === body).map((call) => call.key);
    expect(keyOf('victim')).toEqual([victimKey, victimKey]);
    for (const body of ['moved', 'forged']) expect(keyOf(body)[0]).not.toMatch(new RegExp(`^(${victimKey}|order-4711-victim)$`));
  }, 40_000);

  it('a rolling rotation (old → old,new → new,old → new) keeps every retry’s identity across two workers', async () => {
    const steps = [[OLD_KEY], [OLD_KEY, NEW_KEY], [NEW_KEY, OLD_KEY], [NEW_KEY]];
    const calls: Call[] = [];
    for (let step = 0; step + 1 < steps.length; step++) {
      // Mid-deployment a retry lands on either task. Here the tasks take turns (each runs
      // every message once, then stops, draining), so every message's retries cross, both
      // ways, between a task on this step and one on the next.
      const queues = await suite.emulator.createQueues();
      const bodies = Array.from({ length: 8 }, (_, i) => `fail-99-${step}-${i}`);
      for (const body of bodies) await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: body }));
      for (let turn = 1; turn <= 4; turn++) {
        const on = step + ((turn + 1) % 2);
        const task = await suite.engine(queues, recordingHandler(calls, `step${on}`), FAST, { retryStateKeys: steps[on]! });
        const ran = (body: string) => calls.filter((call) => call.body === body).length;
        await eventually(() => (bodies.every((body) => ran(body) >= turn) ? true : undefined), 20_000, `step ${step}: turn ${turn} of every message`);
        await task.stop({ drainTimeoutMs: 10_000 });
      }
    }
    const byBody = new Map<string, Call[]>();
    for (const call of calls) byBody.set(call.body, [...(byBody.get(call.body) ?? []), call]);
    expect(byBody.size).toBe(24);
    for (const [body, runs] of byBody) {
      expect(new Set(runs.map((call) => call.by)).size, body).toBe(2);
      expect(new Set(runs.map((call) => call.key)).size, `${body}: ${JSON.stringify(runs)}`).toBe(1);
    }
  }, 120_000);
});
