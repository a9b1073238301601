import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { NonRetryableError, RetryableError } from '@requeue/retry';
import type { WorkerEvents } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

type Recorded = { [K in 'received' | 'handled' | 'settled']: { name: K; event: WorkerEvents[K] } }['received' | 'handled' | 'settled'];

describe('the worker event stream (fauxqs)', () => {
  it('reports each delivery as received, handled and settled, in that order, with the outcome', async () => {
    const queues = await suite.emulator.createQueues();
    const worker = await suite.engine(
      queues,
      async ({ body, attempt }) => {
        const { id } = body as { id: string };
        if (id === 'flaky' && attempt === 1) throw new RetryableError('flaky', { errorType: 'TEMPORARY' });
        if (id === 'bad') throw new NonRetryableError('rejected', { errorType: 'HTTP_4XX' });
      },
      { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } },
    );
    const seen: Recorded[] = [];
    for (const name of ['received', 'handled', 'settled'] as const) worker.on(name, (event) => seen.push({ name, event } as Recorded));
    const ids: Record<string, string> = {};
    for (const id of ['ok', 'flaky', 'bad']) {
      ids[id] = (await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify({ id }) }))).MessageId!;
    }
    const settled = () => seen.flatMap((r) => (r.name === 'settled' ? [r.event] : []));
    // Awaited on the stream itself: four settles (ok, flaky's retry and its success, bad).
    await eventually(() => (settled().length >= 4 ? true : undefined), 15_000, 'four settled events');

    const outcomes = (originalMessageId: string) =>
      settled()
        .filter((e) => e.originalMessageId === originalMessageId)
        .map((e) => e.outcome.kind);
    expect(outcomes(ids.ok!)).toEqual(['deleted']);
    expect(outcomes(ids.flaky!)).toEqual(['retry', 'deleted']);
    expect(outcomes(ids.bad!)).toEqual(['dead-letter']);
    expect(settled().find((e) => e.outcome.kind === 'dead-letter')?.outcome).toMatchObject({
      reason: 'non-retryable',
      errorType: 'HTTP_4XX',
      carriesRecord: true,
    });
    expect(settled().find((e) => e.outcome.kind === 'retry')?.outcome).toMatchObject({ nextAttempt: 2, errorType: 'TEMPORARY', transport: 'copy' });

    // Per delivery: received, then handled, then settled.
    for (const event of settled()) {
      const order = seen.filter((r) => r.event.messageId === event.messageId).map((r) => r.name);
      expect(order).toEqual(['received', 'handled', 'settled']);
    }
  });

  it('stops calling a listener once it unsubscribes', async () => {
    const queues = await suite.emulator.createQueues();
    const worker = await suite.engine(queues, async () => undefined);
    const early: string[] = [];
    const all: string[] = [];
    const unsubscribe = worker.on('settled', ({ messageId }) => early.push(messageId));
    worker.on('settled', ({ messageId }) => all.push(messageId));
    await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: '1' }));
    await eventually(() => (all.length === 1 ? true : undefined), 10_000, 'the first settle');
    unsubscribe();
    await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: '2' }));
    await eventually(() => (all.length === 2 ? true : undefined), 10_000, 'the second settle');
    expect(early).toEqual([all[0]]);
  });
});
