/**
 * An in-memory SQS queue that answers the calls the requeue worker makes, on a clock you
 * can give it (`VirtualTime` from `@requeue/sqs/time`): for tests of your handlers, for
 * benchmarks without HTTP, and for `requeue simulate`.
 *
 * @packageDocumentation
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { commandName, entryFailures, refusedOrChecked, toMessage } from './memory-sqs-answers.js';
import type { MemorySqsOptions, MemorySqsTimers, SentMessage, SqsCommandName } from './memory-sqs-options.js';
import { MemoryQueueStore } from './memory-sqs-store.js';
import { checkSqsRequest, SQS_LIMITS } from './sqs-limits.js';

export type { MemorySqsOptions, MemorySqsTimers, SentMessage, SqsCommandName } from './memory-sqs-options.js';

const nodeTimers: MemorySqsTimers = {
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * An in-memory SQS for tests, benchmarks and `requeue simulate`: a standard or FIFO queue
 * (by its URL's `.fifo`) that behaves as SQS does where it matters to the worker.
 * Visibility timeouts and delays run on the given clock; a receive returns what is
 * visible or long-polls for it (up to `WaitTimeSeconds`, or until `close()`); a message
 * given back with visibility 0 is the next received; receive counts rise with each
 * receive, and the redrive moves a message out past `maxReceiveCount`. On a FIFO queue a
 * receive may return several messages of one group, in order, and none from a group with
 * a message in flight (fauxqs returns one message per group per receive). The
 * `AWSTraceHeader` a message was sent with comes back on receive (fauxqs drops it).
 * Requests over SQS's limits are refused as SQS refuses them (`checkSqsRequest`): a
 * whole request with an error named by SQS's code, a batch's entries one by one.
 * Sends to any other queue are recorded in `sent` and go nowhere.
 */
export class MemorySqs {
  /** The queue's URL (`MemorySqsOptions.queueUrl`). */
  readonly queueUrl: string;
  /** Every message sent, to this queue (retry copies) or another (dead letters), in order. */
  readonly sent: SentMessage[] = [];
  /** Message ids, in the order receives returned them. */
  readonly received: string[] = [];
  /** Message ids, as deletes landed. */
  readonly deleted: string[] = [];
  /** Message ids whose delete is under way (held by `beforeAnswer`). */
  readonly deleting: string[] = [];
  /** Message ids given back with visibility 0. */
  readonly madeVisible: string[] = [];
  /** Each non-empty receive's message ids. */
  readonly receives: string[][] = [];
  /** What each receive asked for (`MaxNumberOfMessages`), in order. */
  readonly asked: number[] = [];
  /** Calls answered, by name. */
  readonly calls: Partial<Record<SqsCommandName, number>> = {};
  /** Receives under way now (long polls waiting included). */
  receivesUnderWay = 0;
  /** The most receives that were ever under way at once. */
  mostReceivesUnderWay = 0;
  /** Messages asked for by the receives under way. */
  askedUnderWay = 0;
  /** `performance.now()` when the last receive was sent. */
  lastReceiveSentAt = 0;
  private readonly history: boolean;
  private readonly store: MemoryQueueStore;
  private readonly waiting = new Set<() => void>();
  private readonly fifo: boolean;
  private readonly emptyWaiters: Array<() => void> = [];
  private closed = false;
  private ids = 0;

  constructor(private readonly options: MemorySqsOptions) {
    this.queueUrl = options.queueUrl;
    this.history = options.history ?? true;
    this.fifo = options.queueUrl.endsWith('.fifo');
    this.store = new MemoryQueueStore({
      fifo: this.fifo,
      now: options.now ?? Date.now,
      visibilityTimeoutMs: (options.visibilityTimeoutSeconds ?? 30) * 1000,
      maxReceiveCount: options.maxReceiveCount,
    });
  }

  /** The client to give the worker (`SqsWorkerOptions.sqs`): it answers the calls of `SqsCommandName`. */
  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  /** Puts a message on the queue; returns its id. */
  add(body: string, extra: { id?: string; attributes?: Record<string, MessageAttributeValue>; groupId?: string; traceHeader?: string } = {}): string {
    const id = extra.id ?? `m${++this.ids}`;
    this.store.add({ id, body, attributes: extra.attributes ?? {}, groupId: extra.groupId, traceHeader: extra.traceHeader, visibleAt: 0 });
    this.wake(1);
    return id;
  }

  /** Messages still on the queue, visible, delayed or in flight. */
  get remaining(): number {
    return this.store.size;
  }

  /** Messages the redrive moved out. */
  get redriven(): number {
    return this.store.redriven;
  }

  /** The ids of the messages the redrive moved out, in order. */
  get redrivenIds(): readonly string[] {
    return this.store.redrivenIds;
  }

  /** The bodies of the messages the redrive moved out, in order. */
  get redrivenBodies(): readonly string[] {
    return this.store.redrivenBodies;
  }

  /** The most receives any one message took. */
  get mostReceivesOfOne(): number {
    return this.store.mostReceives;
  }

  /** Resolves once no message is left: every one deleted or moved out by the redrive. */
  whenEmpty(): Promise<void> {
    return this.store.size === 0 ? Promise.resolve() : new Promise((resolve) => this.emptyWaiters.push(resolve));
  }

  /** Ends the long polls under way and makes later receives return at once. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  private async send(command: unknown): Promise<unknown> {
    const name = commandName(command);
    this.calls[name] = (this.calls[name] ?? 0) + 1;
    if (command instanceof ReceiveMessageCommand) return this.receive(command);
    if (command instanceof DeleteMessageBatchCommand) return this.deleteBatch(command);
    await this.options.beforeAnswer?.(name);
    if (command instanceof SendMessageBatchCommand) return this.sendBatch(command);
    if (command instanceof ChangeMessageVisibilityBatchCommand) return this.changeVisibility(command);
    return this.attributes();
  }

  private async receive(command: ReceiveMessageCommand): Promise<{ Messages: Message[] }> {
    const asked = command.input.MaxNumberOfMessages ?? 1;
    if (this.history) this.asked.push(asked);
    this.lastReceiveSentAt = performance.now();
    this.receivesUnderWay++;
    this.askedUnderWay += asked;
    this.mostReceivesUnderWay = Math.max(this.mostReceivesUnderWay, this.receivesUnderWay);
    try {
      // At least one short look, as a long poll of 0 s still costs a round trip.
      const now = this.options.now ?? Date.now;
      const until = now() + Math.max(20, (command.input.WaitTimeSeconds ?? 0) * 1000);
      let taken = this.store.take(asked);
      this.resolveIfEmpty();
      // A hidden message may become visible on the clock alone: look again when the first one does.
      while (taken.length === 0 && !this.closed && now() < until) {
        await this.waitForWork(Math.max(1, Math.min(until, this.store.nextVisibleAt()) - now()));
        taken = this.store.take(asked);
        this.resolveIfEmpty();
      }
      if (taken.length > 0) await this.options.beforeAnswer?.('ReceiveMessage');
      const messages = taken.map(toMessage);
      if (this.history && messages.length > 0) {
        this.received.push(...messages.map((m) => m.MessageId!));
        this.receives.push(messages.map((m) => m.MessageId!));
      }
      return { Messages: messages };
    } finally {
      this.receivesUnderWay--;
      this.askedUnderWay -= asked;
    }
  }

  private sendBatch(command: SendMessageBatchCommand) {
    const { QueueUrl, Entries = [] } = command.input;
    const now = (this.options.now ?? Date.now)();
    const check = refusedOrChecked(checkSqsRequest('SendMessageBatch', command.input, this.options.maximumMessageSize ?? SQS_LIMITS.messageBytes));
    const successful = Entries.filter((entry) => !check.entries.has(entry.Id ?? '')).map((entry) => {
      const sent: SentMessage = {
        queueUrl: QueueUrl ?? '',
        body: entry.MessageBody ?? '',
        attributes: entry.MessageAttributes ?? {},
        delaySeconds: entry.DelaySeconds,
        groupId: entry.MessageGroupId,
        deduplicationId: entry.MessageDeduplicationId,
        traceHeader: entry.MessageSystemAttributes?.AWSTraceHeader?.StringValue,
      };
      if (this.history) this.sent.push(sent);
      const id = `m${++this.ids}`;
      if (QueueUrl === this.queueUrl) {
        this.store.add({
          id,
          body: sent.body,
          attributes: sent.attributes,
          groupId: sent.groupId,
          traceHeader: sent.traceHeader,
          visibleAt: now + (sent.delaySeconds ?? 0) * 1000,
        });
      }
      return { Id: entry.Id, MessageId: id, MD5OfMessageBody: '' };
    });
    this.wake(successful.length);
    return { Successful: successful, Failed: entryFailures(check) };
  }

  private async deleteBatch(command: DeleteMessageBatchCommand) {
    const entries = command.input.Entries ?? [];
    const ids = entries.map((entry) => this.store.idOf(entry.ReceiptHandle ?? '')).filter((id): id is string => id !== undefined);
    this.deleting.push(...ids);
    await this.options.beforeAnswer?.('DeleteMessageBatch');
    this.deleting.splice(0, this.deleting.length, ...this.deleting.filter((id) => !ids.includes(id)));
    for (const entry of entries) {
      const removed = this.store.remove(entry.ReceiptHandle ?? '');
      if (removed && this.history) this.deleted.push(removed.id);
    }
    // On a standard queue a delete makes nothing visible; on a FIFO queue it may free a group.
    if (this.fifo) this.wake();
    else this.resolveIfEmpty();
    return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
  }

  private changeVisibility(command: ChangeMessageVisibilityBatchCommand) {
    const check = refusedOrChecked(checkSqsRequest('ChangeMessageVisibilityBatch', command.input));
    const entries = (command.input.Entries ?? []).filter((entry) => !check.entries.has(entry.Id ?? ''));
    for (const entry of entries) {
      const changed = this.store.changeVisibility(entry.ReceiptHandle ?? '', entry.VisibilityTimeout ?? 0);
      if (changed && entry.VisibilityTimeout === 0 && this.history) this.madeVisible.push(changed.id);
    }
    this.wake();
    return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: entryFailures(check) };
  }

  private attributes() {
    const { visibilityTimeoutSeconds = 30, maxReceiveCount } = this.options;
    const redrive =
      maxReceiveCount === undefined
        ? {}
        : { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:dlq', maxReceiveCount }) };
    return {
      Attributes: {
        VisibilityTimeout: String(visibilityTimeoutSeconds),
        MaximumMessageSize: String(this.options.maximumMessageSize ?? SQS_LIMITS.messageBytes),
        ...redrive,
      },
    };
  }

  private waitForWork(maxMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        cancel();
        this.waiting.delete(done);
        resolve();
      };
      const cancel = (this.options.timers ?? nodeTimers).after(Math.max(0, maxMs), done);
      this.waiting.add(done);
    });
  }

  /**
   * Ends up to `receives` long polls' waits, each to look again: as many as messages may
   * have become visible, not every poll for every message (a simulated hour at 200 messages
   * a second woke six polls per message, five of them to wait again).
   */
  private wake(receives = Number.POSITIVE_INFINITY): void {
    let woken = 0;
    for (const done of [...this.waiting]) {
      if (woken++ >= receives) break;
      done();
    }
    this.resolveIfEmpty();
  }

  /** A receive's redrive, or a delete, may have taken the last message. */
  private resolveIfEmpty(): void {
    if (this.store.size === 0) for (const resolve of this.emptyWaiters.splice(0)) resolve();
  }
}
