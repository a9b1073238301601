import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { encodeDeadLetterRecord } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import type { HeldLetters } from './held-letters.js';
import { ReturnWatch } from './return-watch.js';
import { toEntry, type DlqEntry } from './scan.js';

/** A dead letter of `originalMessageId`, in the DLQ as `messageId` since `sentAt`. */
function letter(messageId: string, originalMessageId: string, sentAt: number): Message {
  const record = {
    reason: 'non-retryable' as const,
    errorType: 'HTTP_4XX',
    error: '400',
    attempts: 1,
    firstReceivedAt: sentAt,
    deadLetteredAt: sentAt,
    sourceQueue: 'http://127.0.0.1/000000000000/jobs',
    originalMessageId,
  };
  return {
    MessageId: messageId,
    Body: '{}',
    Attributes: { SentTimestamp: String(sentAt) },
    MessageAttributes: { 'x-dead-letter': { DataType: 'String', StringValue: encodeDeadLetterRecord(record) } },
  };
}

/** A watch over a DLQ whose receives answer `shown` once, then nothing. */
function watchShowing(shown: Message[]): { watch: ReturnWatch; others: DlqEntry[] } {
  const answers = [shown, []];
  const sqs = { send: async () => ({ Messages: answers.shift() ?? [] }) } as unknown as SQSClient;
  const held = { add: () => undefined } as unknown as HeldLetters;
  const others: DlqEntry[] = [];
  const watch = new ReturnWatch({ sqs, dlqUrl: 'http://127.0.0.1/000000000000/jobs-dlq' }, held, 120, (entry) => others.push(entry));
  return { watch, others };
}

describe('ReturnWatch', () => {
  it('counts a redriven message that came back before its send had landed, once it is watched', async () => {
    // In the DLQ after the watch began: built before the watch here, so dated well after it.
    const { watch } = watchShowing([letter('returned-1', 'original-1', Date.now() + 60_000)]);
    await watch.poll();
    expect(watch.failures).toHaveLength(0);
    watch.watch(toEntry(letter('dead-1', 'original-1', Date.now() - 60_000)), 'redriven-1');
    expect(watch.failures).toMatchObject([{ messageId: 'dead-1', redrivenAs: 'redriven-1', returnedAs: 'returned-1', reason: 'non-retryable' }]);
  });

  it('does not take a letter that was in the DLQ before the watch began for a return', async () => {
    const old = letter('dead-2', 'original-2', Date.now() - 60_000);
    const { watch, others } = watchShowing([old]);
    await watch.poll();
    expect(others).toHaveLength(1);
    watch.watch(toEntry(old), 'redriven-2');
    expect(watch.failures).toHaveLength(0);
  });
});
