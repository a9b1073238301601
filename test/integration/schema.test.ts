import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { parseDeadLetterRecord } from '@requeue/retry/engine';
import type { BodySchema, WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

const charge = z.object({ orderId: z.string().min(1), amountCents: z.number().int().positive(), currency: z.string().default('EUR') });

async function send(queues: QueuePair, body: unknown) {
  await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: typeof body === 'string' ? body : JSON.stringify(body) }));
}

/** The DLQ's one message, once it is there; `what` names it in a timeout. */
function oneDeadLetter(queues: QueuePair, what: string) {
  return eventually(
    async () => {
      const found = await deadLetters(queues);
      return found.length === 1 ? found : undefined;
    },
    10_000,
    what,
  );
}

async function deadLetters(queues: QueuePair) {
  const out = await suite.emulator.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queues.dlqUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], VisibilityTimeout: 30 }),
  );
  return (out.Messages ?? []).map((m) => ({ body: m.Body, record: parseDeadLetterRecord(m.MessageAttributes?.['x-dead-letter']?.StringValue) }));
}

describe('typed, validated bodies with Standard Schema (fauxqs)', () => {
  it("hands the handler the schema output, and dead-letters a body that fails on its first delivery, in the validator's words, without calling the handler", async () => {
    const queues = await suite.emulator.createQueues();
    const handled: Array<WorkerMessage<z.output<typeof charge>>> = [];
    await suite.engine(queues, async (message) => void handled.push(message as WorkerMessage<z.output<typeof charge>>), {}, { schema: charge });
    await send(queues, { orderId: 'o-1', amountCents: 1200 });
    await send(queues, { orderId: '', amountCents: 'twelve', items: [] });
    await eventually(() => (handled.length === 1 ? true : undefined), 10_000, 'the valid message');
    const [dead] = await oneDeadLetter(queues, 'the dead letter');
    expect(handled[0]!.body).toEqual({ orderId: 'o-1', amountCents: 1200, currency: 'EUR' });
    expect(dead!.record).toMatchObject({ reason: 'non-retryable', errorType: 'VALIDATION', attempts: 1 });
    expect(dead!.record!.error).toMatch(/^body failed validation: orderId: .+; amountCents: .*number/);
    // The body is kept as published, for a replay after a fix.
    expect(JSON.parse(dead!.body!)).toEqual({ orderId: '', amountCents: 'twelve', items: [] });
    expect(handled).toHaveLength(1);
  });

  it('takes any Standard Schema validator, not only zod, sync or async', async () => {
    const queues = await suite.emulator.createQueues();
    const evenNumber: BodySchema<number> = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: async (value) =>
          typeof value === 'number' && value % 2 === 0 ? { value: value / 2 } : { issues: [{ message: 'must be an even number', path: [] }] },
      },
    };
    const halves: number[] = [];
    await suite.engine(queues, async (message) => void halves.push(message.body as number), {}, { schema: evenNumber });
    await send(queues, '8');
    await send(queues, '7');
    await eventually(() => (halves.length === 1 ? true : undefined), 10_000, 'the even number');
    const [dead] = await oneDeadLetter(queues, 'the odd one dead-lettered');
    expect(halves).toEqual([4]);
    expect(dead!.record).toMatchObject({ errorType: 'VALIDATION', error: 'body failed validation: must be an even number' });
  });

  it('dead-letters as a handler bug when the validator itself throws: the message is not at fault', async () => {
    const queues = await suite.emulator.createQueues();
    const broken: BodySchema = {
      '~standard': {
        version: 1,
        vendor: 'broken',
        validate: () => {
          throw new TypeError('schema.parse is not a function');
        },
      },
    };
    let calls = 0;
    await suite.engine(queues, async () => void calls++, {}, { schema: broken });
    await send(queues, { any: 'thing' });
    const [dead] = await oneDeadLetter(queues, 'the dead letter');
    expect(dead!.record).toMatchObject({
      reason: 'handler-bug',
      errorType: 'HANDLER_BUG',
      error: 'the body schema (broken) threw: schema.parse is not a function',
    });
    expect(calls).toBe(0);
  });
});
