import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { LongPolls } from './long-polls.fake.js';

interface Stored {
  id: string;
  groupId: string;
  body: string;
  receiveCount: number;
  /** Epoch ms from which it may be received; in flight until then once received. */
  visibleAt: number;
  receiptHandle: string | undefined;
}

/**
 * A FIFO queue that behaves as SQS does where the emulator does not: one receive may
 * return several messages of one group, in order, and a group with any message in
 * flight returns none. (fauxqs returns one message per group per receive, which hides
 * ordering faults.) Visibility timeouts run on the given clock.
 */
export class FifoSqsFake {
  readonly deadLetters: Array<{ body: string; groupId: string | undefined; deduplicationId: string | undefined; attributes: Record<string, string> }> = [];
  readonly receives: string[][] = [];
  private readonly queue: Stored[] = [];
  private readonly polls = new LongPolls();
  private handles = 0;

  constructor(
    readonly queueUrl: string,
    private readonly now: () => number = Date.now,
    private readonly visibilityTimeoutMs = 30_000,
  ) {}

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  /** Messages `ids` of one group, in order. */
  add(groupId: string, ids: readonly string[]): void {
    for (const id of ids) this.queue.push({ id, groupId, body: JSON.stringify({ id }), receiveCount: 0, visibleAt: 0, receiptHandle: undefined });
    this.polls.wake();
  }

  get remaining(): number {
    return this.queue.length;
  }

  /** Ends the long polls under way and makes later receives return at once. */
  close(): void {
    this.polls.close();
  }


  private async send(command: unknown): Promise<unknown> {
    if (command instanceof ReceiveMessageCommand) {
      const { MaxNumberOfMessages, WaitTimeSeconds } = command.input;
      return { Messages: await this.receive(MaxNumberOfMessages ?? 1, (WaitTimeSeconds ?? 0) * 1000) };
    }
    if (command instanceof DeleteMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      for (const entry of entries) {
        const index = this.queue.findIndex((m) => m.receiptHandle === entry.ReceiptHandle);
        if (index >= 0) this.queue.splice(index, 1);
      }
      this.polls.wake();
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof ChangeMessageVisibilityBatchCommand) {
      const entries = command.input.Entries ?? [];
      for (const entry of entries) {
        const stored = this.queue.find((m) => m.receiptHandle === entry.ReceiptHandle);
        if (stored) stored.visibleAt = this.now() + (entry.VisibilityTimeout ?? 0) * 1000;
      }
      this.polls.wake();
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof SendMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      for (const e of entries) {
        const attributes = Object.fromEntries(Object.entries(e.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue ?? '']));
        this.deadLetters.push({ body: e.MessageBody ?? '', groupId: e.MessageGroupId, deduplicationId: e.MessageDeduplicationId, attributes });
      }
      return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `dl-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] };
    }
    throw new Error(`unexpected command ${(command as object).constructor.name}`);
  }

  /** A long poll: returns what is available, or waits for it up to `waitMs` (at least one short look). */
  private async receive(max: number, waitMs: number): Promise<Message[]> {
    const until = Date.now() + Math.max(20, waitMs);
    for (;;) {
      const batch = this.available(max);
      if (batch.length > 0 || this.polls.closed || Date.now() >= until) return batch;
      // A hidden message may become visible on the clock alone: look again shortly.
      await this.polls.wait(20);
    }
  }

  /** SQS FIFO: in order, several per group, and nothing from a group with a message in flight. */
  private available(max: number): Message[] {
    const now = this.now();
    const locked = new Set(this.queue.filter((m) => m.receiptHandle !== undefined && m.visibleAt > now).map((m) => m.groupId));
    const batch: Message[] = [];
    const blockedGroups = new Set<string>();
    for (const stored of this.queue) {
      if (batch.length === max) break;
      if (locked.has(stored.groupId) || blockedGroups.has(stored.groupId)) continue;
      if (stored.visibleAt > now) {
        blockedGroups.add(stored.groupId);
        continue;
      }
      stored.receiveCount++;
      stored.receiptHandle = `rh-${++this.handles}`;
      stored.visibleAt = now + this.visibilityTimeoutMs;
      batch.push({
        MessageId: stored.id,
        ReceiptHandle: stored.receiptHandle,
        Body: stored.body,
        Attributes: { MessageGroupId: stored.groupId, ApproximateReceiveCount: String(stored.receiveCount) },
      });
    }
    if (batch.length > 0) this.receives.push(batch.map((m) => m.MessageId ?? ''));
    return batch;
  }
}
