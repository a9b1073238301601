import { ChangeMessageVisibilityBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterView } from './dead-letter-view.js';

/** A DLQ of `held` messages, of which a receive sees only `visible()`: the rest are hidden by someone else. */
function dlq(held: number, visible: () => number) {
  let receives = 0;
  const letters: Message[] = Array.from({ length: held }, (_, i) => ({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body: '{}' }));
  const sqs = {
    send: async (command: unknown) => {
      if (command instanceof GetQueueAttributesCommand)
        return {
          Attributes: {
            ApproximateNumberOfMessages: String(visible()),
            ApproximateNumberOfMessagesNotVisible: String(held - visible()),
            ApproximateNumberOfMessagesDelayed: '0',
          },
        };
      if (command instanceof ChangeMessageVisibilityBatchCommand) return {};
      if (command instanceof ReceiveMessageCommand) {
        // One receive returns what is visible, the next nothing: a scan's two empty receives end it.
        return { Messages: receives++ % 3 === 0 ? letters.slice(0, visible()) : [] };
      }
      throw new Error(`unexpected ${String(command)}`);
    },
  } as unknown as SQSClient;
  return { sqs, scans: () => Math.ceil(receives / 3) };
}

describe("the dashboard's view of the DLQ", () => {
  it('scans again when its last scan saw fewer letters than the DLQ holds (another reader had them hidden)', async () => {
    let visible = 1;
    const queue = dlq(3, () => visible);
    const view = new DeadLetterView({ sqs: queue.sqs, dlqUrl: 'http://sqs.local/000000000000/dlq' }, () => 0);
    expect(await view.read()).toHaveLength(1);
    visible = 3;
    // The same depth (3): a scan that had seen all three would be kept; this one was not.
    expect(await view.read()).toHaveLength(3);
    expect((await view.groups()).read).toBe(3);
    expect(queue.scans()).toBe(2);
  });
});
