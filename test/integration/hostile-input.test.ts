import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { RetryableError } from '@requeue/retry';
import { parseDeadLetterRecord } from '@requeue/retry/engine';
import type { WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

const send = (queueUrl: string, body: string, override?: string) =>
  suite.emulator.sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      ...(override ? { MessageAttributes: { 'x-retry-policy': { DataType: 'String', StringValue: override } } } : {}),
    }),
  );

describe('a hostile or careless publisher cannot stall or turn the worker into a hammer (fauxqs)', () => {
  it('a dependency answering 429 with Retry-After: 999999999 pauses it for at most maxPauseMs: later messages still run, and readiness stays true', async () => {
    const queues = await suite.emulator.createQueues();
    const handled: Array<{ body: string; at: number }> = [];
    const worker = await suite.engine(queues, async (message: WorkerMessage) => {
      handled.push({ body: message.rawBody, at: Date.now() });
      if (message.rawBody === 'poison') throw new RetryableError('429 from the host', { errorType: 'RATE_LIMIT', retryAfterMs: 999_999_999 * 1000 });
    });
    await send(queues.queueUrl, 'poison');
    await eventually(() => (handled.length > 0 ? true : undefined), 10_000, 'the poisoned call');
    const sentAt = Date.now();
    for (let i = 0; i < 5; i++) await send(queues.queueUrl, `ordinary-${i}`);
    await eventually(() => (handled.filter((h) => h.body.startsWith('ordinary')).length === 5 ? true : undefined), 20_000, 'the five ordinary messages');
    // The default cap is the breaker's longest cool-down, 5 s; a second of slack for the poll.
    expect(Math.max(...handled.filter((h) => h.body.startsWith('ordinary')).map((h) => h.at)) - sentAt).toBeLessThan(8_000);
    expect(worker.health().ready).toBe(true);
    // The message's own wait honours Retry-After, which ends past its deadline: a dead letter now.
    const [dead] = await eventually(
      async () => {
        const letters = await suite.emulator.drain(queues.dlqUrl);
        return letters.length ? letters : undefined;
      },
      10_000,
      'the poisoned message in the DLQ',
    );
    expect(parseDeadLetterRecord(dead!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({
      reason: 'deadline-exceeded',
      errorType: 'RATE_LIMIT',
    });
  }, 40_000);

  it('x-retry-policy asking for 1,000 attempts with no delay gets the operator’s budget and at least 1 s between calls', async () => {
    const queues = await suite.emulator.createQueues();
    const calls: number[] = [];
    await suite.engine(
      queues,
      async () => {
        calls.push(Date.now());
        throw new RetryableError('host down', { errorType: 'TEMPORARY' });
      },
      // The operator's budget: 3 attempts. Backpressure off, so the ceilings alone are measured.
      { maxAttempts: 3 },
      { backpressure: false },
    );
    await send(queues.queueUrl, 'hammer', '{"maxAttempts":1000,"backoff":{"type":"fixed","delayMs":0,"jitter":"none"}}');
    const [dead] = await eventually(
      async () => {
        const letters = await suite.emulator.drain(queues.dlqUrl);
        return letters.length ? letters : undefined;
      },
      15_000,
      'the dead letter',
    );
    expect(calls).toHaveLength(3);
    for (let i = 1; i < calls.length; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(900);
    expect(parseDeadLetterRecord(dead!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'max-attempts', attempts: 3 });
  }, 30_000);
});
