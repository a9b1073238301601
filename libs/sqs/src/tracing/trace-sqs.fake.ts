import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type Message, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import { LongPolls } from '../long-polls.fake.js';

interface Stored {
  id: string;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  traceHeader: string | undefined;
}

/**
 * A standard queue that keeps the `AWSTraceHeader` system attribute a message was sent
 * with and returns it on receive, as SQS does. (fauxqs drops it, so on the emulator a
 * context that travels only there is lost.) Delays are ignored: every message is
 * visible at once, and each is received once.
 */
export class TraceSqsFake {
  readonly sent: Stored[] = [];
  private readonly queue: Stored[] = [];
  private readonly polls = new LongPolls();
  private ids = 0;

  constructor(readonly queueUrl: string) {}

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  add(body: string, attributes: Record<string, MessageAttributeValue>, traceHeader?: string): void {
    this.queue.push({ id: `m${this.ids++}`, body, attributes, traceHeader });
    this.polls.wake();
  }

  close(): void {
    this.polls.close();
  }


  private async send(command: unknown): Promise<unknown> {
    if (command instanceof ReceiveMessageCommand) {
      if (this.queue.length === 0 && !this.polls.closed) await this.polls.wait();
      return { Messages: this.queue.splice(0, command.input.MaxNumberOfMessages ?? 1).map(toMessage) };
    }
    if (command instanceof SendMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      for (const entry of entries) {
        const stored = { id: `m${this.ids++}`, body: entry.MessageBody!, attributes: entry.MessageAttributes ?? {}, traceHeader: entry.MessageSystemAttributes?.AWSTraceHeader?.StringValue };
        this.sent.push(stored);
        if (command.input.QueueUrl === this.queueUrl) this.queue.push(stored);
      }
      this.polls.wake();
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof DeleteMessageBatchCommand) return { Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id })), Failed: [] };
    return {};
  }
}

function toMessage(stored: Stored): Message {
  return {
    MessageId: stored.id,
    ReceiptHandle: `rh-${stored.id}`,
    Body: stored.body,
    MessageAttributes: stored.attributes,
    Attributes: { ApproximateReceiveCount: '1', ...(stored.traceHeader ? { AWSTraceHeader: stored.traceHeader } : {}) },
  };
}
