import { RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { RequeuePublisher } from '@requeue/sqs/publisher';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

describe('RequeuePublisher against the SQS and SNS protocols (fauxqs)', () => {
  it("publishes a batch to the topic; the worker sees the attributes and honours each message's own retry policy", async () => {
    const queues = await suite.emulator.createQueues();
    const publisher = new RequeuePublisher({ sqs: suite.emulator.sqs, sns: suite.emulator.sns });
    const seen: WorkerMessage[] = [];
    await suite.engine(
      queues,
      async (message) => {
        seen.push(message);
        if ((message.body as { fail?: boolean }).fail) throw new RetryableError('dependency down', { errorType: 'TEMPORARY' });
      },
      { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } },
    );
    const result = await publisher.publishBatch(queues.topicArn, [
      ...Array.from({ length: 11 }, (_, i) => ({ body: { id: `ok-${i}` }, attributes: { tenant: 'acme', priority: i } })),
      { body: { id: 'give-up-fast', fail: true }, retryPolicy: { maxAttempts: 2 } },
    ]);
    expect(result.failed).toEqual([]);
    expect(result.successful).toHaveLength(12);
    const dead = await eventually(
      async () => {
        const depth = await suite.emulator.depth(queues.dlqUrl);
        return depth.visible === 1 ? suite.emulator.drain(queues.dlqUrl) : undefined;
      },
      15_000,
      'the override to dead-letter after 2 attempts',
    );
    expect(JSON.parse(dead[0]!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'max-attempts', attempts: 2 });
    const ok = seen.filter((m) => (m.body as { id: string }).id.startsWith('ok-'));
    expect(ok).toHaveLength(11);
    expect(ok.find((m) => (m.body as { id: string }).id === 'ok-7')!.attributes).toMatchObject({ tenant: 'acme', priority: '7' });
  });

  it('sends to a FIFO queue with groups and deduplication ids: a resend within the window is dropped, order holds per group', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true });
    const publisher = new RequeuePublisher({ sqs: suite.emulator.sqs });
    const order: string[] = [];
    await suite.engine(queues, async (message) => void order.push((message.body as { id: string }).id));
    const messages = ['a1', 'b1', 'a2', 'b2', 'a3'].map((id) => ({ body: { id }, groupId: id[0]!, deduplicationId: id }));
    await publisher.sendBatch(queues.queueUrl, messages);
    const resent = await publisher.send(queues.queueUrl, { body: { id: 'a1' }, groupId: 'a', deduplicationId: 'a1' });
    expect(resent.messageId).toMatch(/./);
    await eventually(
      async () => {
        const depth = await suite.emulator.depth(queues.queueUrl);
        return order.length >= 5 && depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
      },
      15_000,
      'five deliveries and an empty queue',
    );
    // The queue is empty, so the resend was dropped rather than still on its way.
    expect(order).toHaveLength(5);
    expect(order.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(order.filter((id) => id.startsWith('b'))).toEqual(['b1', 'b2']);
  });
});
