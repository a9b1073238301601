import {
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

function attributes(count: number): Record<string, MessageAttributeValue> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: 'v' }]));
}

/** The SDK's error for a refused call: SQS's code and message. */
async function refusal(call: Promise<unknown>): Promise<{ name: string; message: string }> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as Error | undefined;
  if (!error) throw new Error('the call was accepted');
  return { name: error.name, message: error.message };
}

describe('the local emulator refuses what SQS refuses, with SQS error codes (the real protocol)', () => {
  it('more than 10 message attributes; 10 are accepted', async () => {
    const { queueUrl } = await suite.emulator.createQueues();
    const send = (count: number) =>
      suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'b', MessageAttributes: attributes(count) }));
    await expect(send(10)).resolves.toHaveProperty('MessageId');
    expect(await refusal(send(11))).toEqual({ name: 'InvalidParameterValue', message: 'Number of message attributes [11] exceeds the allowed maximum [10].' });
  });

  it.each([['AWS.trace'], ['amazon.x'], ['.lead'], ['trail.'], ['a..b'], ['with space'], ['x'.repeat(257)]])('the attribute name %s', async (name) => {
    const { queueUrl } = await suite.emulator.createQueues();
    const sent = suite.emulator.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'b', MessageAttributes: { [name]: { DataType: 'String', StringValue: 'v' } } }),
    );
    const { name: code, message } = await refusal(sent);
    expect(code).toBe('InvalidParameterValue');
    expect(message).toContain('is invalid');
  });

  it("a message over the queue's MaximumMessageSize, counting attribute names, types and values", async () => {
    const { queueUrl } = await suite.emulator.createQueues();
    await suite.emulator.sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { MaximumMessageSize: '1024' } }));
    // 1,000 body bytes + "k" + "String" + 17 value bytes = 1,024: fits; one more byte does not.
    const send = (value: string) =>
      suite.emulator.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x'.repeat(1000), MessageAttributes: { k: { DataType: 'String', StringValue: value } } }),
      );
    await expect(send('v'.repeat(17))).resolves.toHaveProperty('MessageId');
    expect((await refusal(send('v'.repeat(18)))).message).toContain('Message must be shorter than 1024 bytes');
  });

  it('DelaySeconds over 900 and VisibilityTimeout over 43,200', async () => {
    const { queueUrl } = await suite.emulator.createQueues();
    expect((await refusal(suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'b', DelaySeconds: 901 })))).name).toBe(
      'InvalidParameterValue',
    );
    await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'b' }));
    const [message] = (await suite.emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }))).Messages ?? [];
    const hide = suite.emulator.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle, VisibilityTimeout: 43_201 }),
    );
    expect((await refusal(hide)).name).toBe('InvalidParameterValue');
  });

  it('a batch of 11 entries, or over 1 MiB in all, is refused whole', async () => {
    const { queueUrl } = await suite.emulator.createQueues();
    const entries = (count: number, bytes: number) => Array.from({ length: count }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x'.repeat(bytes) }));
    expect((await refusal(suite.emulator.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(11, 1) })))).name).toBe(
      'TooManyEntriesInBatchRequest',
    );
    expect((await refusal(suite.emulator.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(2, 600_000) })))).name).toBe(
      'BatchRequestTooLong',
    );
  });

  it("a batch entry over a limit fails alone; the batch's other entries are sent", async () => {
    const { queueUrl } = await suite.emulator.createQueues();
    const answer = await suite.emulator.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'ok', MessageBody: 'fine' },
          { Id: 'crowded', MessageBody: 'b', MessageAttributes: attributes(11) },
          { Id: 'late', MessageBody: 'b', DelaySeconds: 901 },
        ],
      }),
    );
    expect(answer.Successful?.map((entry) => entry.Id)).toEqual(['ok']);
    expect(answer.Failed?.map((entry) => [entry.Id, entry.Code, entry.SenderFault])).toEqual([
      ['crowded', 'InvalidParameterValue', true],
      ['late', 'InvalidParameterValue', true],
    ]);
    expect(await suite.emulator.depth(queueUrl)).toMatchObject({ visible: 1 });
  });
});
