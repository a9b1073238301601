import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { createRetryPolicy } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import { SqsWorker } from './worker.js';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';

/**
 * An SQS stand-in whose deletes (and, if asked, sends) are held until the test lets them
 * through, so the moment between "handler done" and "delete landed" can be observed.
 */
class HeldDeletesSqs {
  readonly received: string[] = [];
  readonly sent: string[] = [];
  readonly heldSends: Array<() => void> = [];
  readonly deleted: string[] = [];
  /** Receipt handles whose delete call is held. */
  readonly deleting: string[] = [];
  readonly heldDeletes: Array<() => void> = [];
  private readonly waitingReceives: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly backlog: Message[],
    private readonly holdSends = false,
  ) {}

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  releaseDeletes(count = this.heldDeletes.length): void {
    for (const release of this.heldDeletes.splice(0, count)) release();
  }

  /** Ends the long polls under way, as a receive's wait time would. */
  close(): void {
    this.closed = true;
    for (const wake of this.waitingReceives.splice(0)) wake();
  }

  private async send(command: unknown): Promise<unknown> {
    if (command instanceof ReceiveMessageCommand) {
      if (this.backlog.length === 0 && !this.closed) await new Promise<void>((wake) => this.waitingReceives.push(wake));
      const messages = this.backlog.splice(0, command.input.MaxNumberOfMessages ?? 1);
      this.received.push(...messages.map((m) => m.MessageId!));
      return { Messages: messages };
    }
    if (command instanceof DeleteMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      const handles = entries.map((e) => e.ReceiptHandle!);
      this.deleting.push(...handles);
      await new Promise<void>((release) => this.heldDeletes.push(release));
      this.deleting.splice(0, this.deleting.length, ...this.deleting.filter((h) => !handles.includes(h)));
      this.deleted.push(...handles);
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof SendMessageBatchCommand) {
      if (this.holdSends) await new Promise<void>((release) => this.heldSends.push(release));
      const entries = command.input.Entries ?? [];
      this.sent.push(...entries.map((e) => e.MessageBody!));
      return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `copy-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] };
    }
    throw new Error(`unexpected command ${(command as object).constructor.name}`);
  }
}

function messages(count: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({ MessageId: `m${i + 1}`, ReceiptHandle: `r${i + 1}`, Body: '{}', Attributes: { ApproximateReceiveCount: '1' } }));
}

function startWorker(sqs: HeldDeletesSqs, handled: string[], outcome: () => void = () => undefined): SqsWorker {
  return new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    retryPolicy: createRetryPolicy(),
    handler: async (message) => {
      handled.push(message.messageId);
      outcome();
    },
    maxInFlight: 1,
    // These tests count running and settling slots; prefetch has its own (prefetch.test.ts).
    prefetch: 0,
    batchWaitMs: 0,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    backpressure: false,
  });
}

describe('SqsWorker slots (fake SQS with held deletes)', () => {
  it('starts the next message while the previous one’s delete is still under way', async () => {
    const sqs = new HeldDeletesSqs(messages(2));
    const handled: string[] = [];
    const worker = startWorker(sqs, handled);
    await worker.start();
    await vi.waitFor(() => expect(handled).toEqual(['m1', 'm2']));
    expect(sqs.deleted).toEqual([]);
    expect(sqs.deleting).toContain('r1');
    sqs.releaseDeletes();
    await vi.waitFor(() => expect(sqs.deleted).toEqual(['r1', 'r2']));
    sqs.close();
    await worker.stop();
  });

  it('holds at most maxInFlight messages settling: beyond that a message keeps its slot until its delete lands', async () => {
    const sqs = new HeldDeletesSqs(messages(3));
    const handled: string[] = [];
    const worker = startWorker(sqs, handled);
    await worker.start();
    // m1 settles without its slot; m2 then has to keep its own, so m3 is not received.
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['r1', 'r2']));
    expect(sqs.received).toEqual(['m1', 'm2']);
    expect(worker.health().inFlight).toBe(2);
    sqs.releaseDeletes();
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['r3']));
    expect(handled).toEqual(['m1', 'm2', 'm3']);
    sqs.releaseDeletes();
    sqs.close();
    await worker.stop();
    expect(sqs.deleted).toEqual(['r1', 'r2', 'r3']);
  });

  it('does not finish stopping until a retried message’s copy is sent and its original deleted', async () => {
    const sqs = new HeldDeletesSqs(messages(1), true);
    const worker = startWorker(sqs, [], () => {
      throw new Error('downstream timed out');
    });
    await worker.start();
    await vi.waitFor(() => expect(sqs.heldSends).toHaveLength(1));
    sqs.close();
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await vi.waitFor(() => expect(worker.health().ready).toBe(false));
    for (const release of sqs.heldSends.splice(0)) release();
    // The delete comes only once the copy is safe; stopping waits for it too.
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['r1']));
    expect(stopped).toBe(false);
    sqs.releaseDeletes();
    await stopping;
    expect(sqs.sent).toEqual(['{}']);
    expect(sqs.deleted).toEqual(['r1']);
  });
});
