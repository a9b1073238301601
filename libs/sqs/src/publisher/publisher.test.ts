import { PublishBatchCommand, type SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { PublishError, PublishValidationError, RequeuePublisher } from './index.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:orders';

type Answer = (
  entries: Array<{ Id: string }>,
  call: number,
) => { Successful?: Array<{ Id: string; MessageId: string }>; Failed?: Array<{ Id: string; Code: string; Message: string; SenderFault: boolean }> } | Error;

/** An SQS/SNS stand-in recording every call; `answer` decides each batch's outcome. */
function fakeClients(answer: Answer = (entries) => ({ Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })) })) {
  const calls: Array<{ command: string; entries: Array<{ Id: string } & Record<string, unknown>> }> = [];
  const send = async (command: unknown) => {
    if (command instanceof SendMessageBatchCommand || command instanceof PublishBatchCommand) {
      const input = command.input as { Entries?: Array<{ Id: string }>; PublishBatchRequestEntries?: Array<{ Id: string }> };
      const entries = (input.Entries ?? input.PublishBatchRequestEntries)!;
      calls.push({ command: command.constructor.name, entries });
      const out = answer(entries, calls.length);
      if (out instanceof Error) throw out;
      return out;
    }
    if (command instanceof SendMessageCommand) {
      calls.push({ command: 'SendMessageCommand', entries: [{ Id: '0', ...command.input }] });
      const out = answer([{ Id: '0' }], calls.length);
      if (out instanceof Error) throw out;
      return { MessageId: 'single' };
    }
    throw new Error(`unexpected ${String(command)}`);
  };
  const client = { send } as unknown;
  return { calls, sqs: client as SQSClient, sns: client as SNSClient };
}

const noWait = { sleep: async () => undefined, random: () => 1 };
const throttled = (message = 'slow down') => Object.assign(new Error(message), { name: 'RequestThrottled', $fault: 'client' });

describe('RequeuePublisher batches', () => {
  it('cuts 25 messages into batches of 10, 10 and 5, and reports every entry by its index', async () => {
    const { calls, sqs } = fakeClients();
    const result = await new RequeuePublisher({ sqs, ...noWait }).sendBatch(
      QUEUE,
      Array.from({ length: 25 }, (_, i) => ({ body: { n: i } })),
    );
    expect(calls.map((c) => c.entries.length)).toEqual([10, 10, 5]);
    expect(result.successful.map((s) => s.index)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(result.failed).toEqual([]);
  });

  it('keeps each batch under the size limit: 1 MiB on SQS, 256 KiB on SNS', async () => {
    const big = 'x'.repeat(300 * 1024);
    const sqsSide = fakeClients();
    await new RequeuePublisher({ sqs: sqsSide.sqs, ...noWait }).sendBatch(
      QUEUE,
      Array.from({ length: 7 }, () => ({ body: big })),
    );
    expect(sqsSide.calls.map((c) => c.entries.length)).toEqual([3, 3, 1]);
    const snsSide = fakeClients();
    const medium = 'y'.repeat(100 * 1024);
    await new RequeuePublisher({ sns: snsSide.sns, ...noWait }).publishBatch(
      TOPIC,
      Array.from({ length: 5 }, () => ({ body: medium })),
    );
    expect(snsSide.calls.map((c) => c.entries.length)).toEqual([2, 2, 1]);
  });

  it('sends throttled entries again with backoff, and reports a sender fault at once without retrying it', async () => {
    const { calls, sqs } = fakeClients((entries, call) => ({
      Successful: entries.filter((e) => !(call === 1 && e.Id === '1') && e.Id !== '2').map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })),
      Failed: [
        ...(call === 1 && entries.some((e) => e.Id === '1') ? [{ Id: '1', Code: 'RequestThrottled', Message: 'slow down', SenderFault: false }] : []),
        ...(entries.some((e) => e.Id === '2') ? [{ Id: '2', Code: 'InvalidParameterValue', Message: 'bad group', SenderFault: true }] : []),
      ],
    }));
    const slept: number[] = [];
    const result = await new RequeuePublisher({ sqs, random: () => 1, sleep: async (ms) => void slept.push(ms) }).sendBatch(QUEUE, [
      { body: 'a' },
      { body: 'b' },
      { body: 'c' },
    ]);
    expect(calls.map((c) => c.entries.map((e) => e.Id))).toEqual([['0', '1', '2'], ['1']]);
    expect(slept).toEqual([100]);
    expect(result.successful.map((s) => s.index)).toEqual([0, 1]);
    expect(result.failed).toEqual([{ index: 2, code: 'InvalidParameterValue', message: 'bad group', senderFault: true }]);
  });

  it('gives up after maxRetries on a call that stays throttled, reporting each entry with the code', async () => {
    const { calls, sqs } = fakeClients(() => throttled());
    const slept: number[] = [];
    const result = await new RequeuePublisher({ sqs, maxRetries: 3, random: () => 1, sleep: async (ms) => void slept.push(ms) }).sendBatch(QUEUE, [
      { body: 'a' },
      { body: 'b' },
    ]);
    // A throttle is retryable whatever its fault: 1 call and 3 retries, doubling.
    expect(calls).toHaveLength(4);
    expect(slept).toEqual([100, 200, 400]);
    expect(result.failed.map((f) => [f.index, f.code])).toEqual([
      [0, 'RequestThrottled'],
      [1, 'RequestThrottled'],
    ]);
  });
});

describe('RequeuePublisher checks every message before it sends any', () => {
  const rejects = async (messages: Parameters<RequeuePublisher['sendBatch']>[1], pattern: RegExp, queueUrl = QUEUE) => {
    const { calls, sqs } = fakeClients();
    const attempt = new RequeuePublisher({ sqs, ...noWait }).sendBatch(queueUrl, messages);
    await expect(attempt).rejects.toThrow(PublishValidationError);
    await expect(new RequeuePublisher({ sqs, ...noWait }).sendBatch(queueUrl, messages)).rejects.toThrow(pattern);
    expect(calls).toEqual([]);
  };

  it('refuses a tenth attribute: a retry copy needs room for x-retry', async () => {
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`a${i}`, 'v']));
    await rejects(
      [{ body: 'ok' }, { body: 'x', attributes: { ...nine, extra: 1 } }],
      /^message 1: attributes: 10 attributes \(x-retry-policy included\) is over the 9/,
    );
    await rejects([{ body: 'x', attributes: nine, retryPolicy: { maxAttempts: 3 } }], /^message 0: attributes: 10 attributes/);
  });

  it("validates the retry policy override, and refuses requeue's own attribute names", async () => {
    await rejects([{ body: 'x', retryPolicy: { maxAttempts: 0 } }], /^message 0: retryPolicy: .*maxAttempts/);
    await rejects([{ body: 'x', attributes: { 'x-retry': '{}' } }], /^message 0: attributes\.x-retry: is requeue's own attribute/);
    await rejects([{ body: 'x', attributes: { 'AWS.trace': 'v' } }], /not a valid attribute name/);
  });

  it('needs a group on FIFO, refuses per-message delay there, and refuses an oversized body', async () => {
    await rejects([{ body: 'x' }], /^message 0: groupId: is required: the queue is FIFO/, FIFO);
    await rejects([{ body: 'x', groupId: 'g', delaySeconds: 5 }], /^message 0: delaySeconds: applies to standard queues only/, FIFO);
    await rejects([{ body: 'x'.repeat(1_048_577) }], /^message 0: body: with its attributes is 1048577 bytes, over the 1040384/);
  });

  it("refuses a message that would leave requeue no room under SQS's 1 MiB for a retry's state or a dead letter's reason", async () => {
    await rejects(
      [{ body: 'x'.repeat(1_040_385) }],
      /over the 1040384 a queue message may have \(SQS's 1048576, less 8192 kept for a retry's state and a dead letter's reason\)/,
    );
    const { calls, sqs } = fakeClients();
    await new RequeuePublisher({ sqs, ...noWait }).sendBatch(QUEUE, [{ body: 'x'.repeat(1_040_384) }]);
    expect(calls).toHaveLength(1);
  });

  it('sends what passes: attributes typed, the override as x-retry-policy, FIFO ids', async () => {
    const { calls, sqs } = fakeClients();
    await new RequeuePublisher({ sqs, ...noWait }).sendBatch(FIFO, [
      { body: { id: 1 }, groupId: 'customer-7', deduplicationId: 'order-1', attributes: { tenant: 'acme', priority: 2 }, retryPolicy: { maxAttempts: 3 } },
    ]);
    expect(calls[0]!.entries[0]).toMatchObject({
      MessageBody: '{"id":1}',
      MessageGroupId: 'customer-7',
      MessageDeduplicationId: 'order-1',
      MessageAttributes: {
        tenant: { DataType: 'String', StringValue: 'acme' },
        priority: { DataType: 'Number', StringValue: '2' },
        'x-retry-policy': { DataType: 'String', StringValue: '{"maxAttempts":3}' },
      },
    });
  });
});

describe('RequeuePublisher single messages', () => {
  it('retries a throttled send, then throws a PublishError with the cause and the destination', async () => {
    const { calls, sqs } = fakeClients(() => throttled('Rate exceeded'));
    const attempt = new RequeuePublisher({ sqs, maxRetries: 2, ...noWait }).send(QUEUE, { body: 'x' });
    await expect(attempt).rejects.toThrow(PublishError);
    await expect(attempt).rejects.toThrow(`${QUEUE}: RequestThrottled: Rate exceeded`);
    expect(calls).toHaveLength(3);
  });

  it('says which client is missing', async () => {
    await expect(new RequeuePublisher({}).publish(TOPIC, { body: 'x' })).rejects.toThrow(/^sns: is not set: pass an SNSClient to publish to topics/);
    await expect(new RequeuePublisher({}).sendBatch(QUEUE, [{ body: 'x' }])).rejects.toThrow(/^sqs: is not set: pass an SQSClient/);
  });
});
