import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export interface StoredMessage {
  id: string;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  groupId: string | undefined;
  traceHeader: string | undefined;
  /** Epoch ms from which it may be received (a delay, or the end of its visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  /** The handle of its latest receive; undefined before the first and once given back. */
  receiptHandle: string | undefined;
  sentAt: number;
  firstReceivedAt: number | undefined;
}

export type NewMessage = Pick<StoredMessage, 'id' | 'body' | 'attributes' | 'groupId' | 'traceHeader' | 'visibleAt'>;

interface StoreOptions {
  fifo: boolean;
  now: () => number;
  visibilityTimeoutMs: number;
  maxReceiveCount: number | undefined;
}

/**
 * The messages of `MemorySqs`'s queue. A standard queue keeps its visible messages in a
 * queue (a receive is O(what it takes), so the engine benchmarks can load 100,000); a
 * FIFO queue keeps one ordered list and applies the group rules on each receive.
 */
export class MemoryQueueStore {
  redriven = 0;
  /** The ids of the messages the redrive moved out, in order. */
  readonly redrivenIds: string[] = [];
  /** The bodies of the messages the redrive moved out, in order. */
  readonly redrivenBodies: string[] = [];
  mostReceives = 0;
  private readonly ready: StoredMessage[] = [];
  private head = 0;
  /** Standard queue: sent with a delay, not yet visible. */
  private readonly delayed: StoredMessage[] = [];
  /** Standard queue: received and not deleted, by receipt handle. */
  private readonly inFlight = new Map<string, StoredMessage>();
  /** FIFO queue: every message, in order. */
  private readonly ordered: StoredMessage[] = [];
  private handles = 0;

  constructor(private readonly options: StoreOptions) {}

  get size(): number {
    return this.options.fifo ? this.ordered.length : this.ready.length - this.head + this.delayed.length + this.inFlight.size;
  }

  add(message: NewMessage): void {
    const stored: StoredMessage = { ...message, receiveCount: 0, receiptHandle: undefined, sentAt: this.options.now(), firstReceivedAt: undefined };
    if (this.options.fifo) this.ordered.push(stored);
    else if (stored.visibleAt > this.options.now()) this.delayed.push(stored);
    else this.ready.push(stored);
  }

  /** Up to `max` messages, each received once more; those past the redrive are moved out instead. */
  take(max: number): StoredMessage[] {
    return this.options.fifo ? this.takeFifo(max) : this.takeStandard(max);
  }

  /**
   * When the next hidden message (delayed, or in flight) becomes visible; Infinity when none
   * is hidden. Every other change that makes a message receivable (a send, a delete that
   * frees a FIFO group, a visibility change) wakes the receives itself.
   */
  nextVisibleAt(): number {
    const now = this.options.now();
    let next = Number.POSITIVE_INFINITY;
    const hidden = this.options.fifo ? [this.ordered] : [this.inFlight.values(), this.delayed];
    for (const messages of hidden) for (const message of messages) if (message.visibleAt > now && message.visibleAt < next) next = message.visibleAt;
    return next;
  }

  /** The id of the message a receipt handle was given for, while it is in flight. */
  idOf(receiptHandle: string): string | undefined {
    return this.options.fifo ? this.ordered.find((m) => m.receiptHandle === receiptHandle)?.id : this.inFlight.get(receiptHandle)?.id;
  }

  remove(receiptHandle: string): StoredMessage | undefined {
    if (this.options.fifo) {
      const index = this.ordered.findIndex((m) => m.receiptHandle === receiptHandle);
      return index < 0 ? undefined : this.ordered.splice(index, 1)[0];
    }
    const message = this.inFlight.get(receiptHandle);
    this.inFlight.delete(receiptHandle);
    return message;
  }

  /** Visible again after `seconds`; at 0 it is the next received. */
  changeVisibility(receiptHandle: string, seconds: number): StoredMessage | undefined {
    const now = this.options.now();
    if (this.options.fifo) {
      const message = this.ordered.find((m) => m.receiptHandle === receiptHandle);
      if (message) message.visibleAt = now + seconds * 1000;
      return message;
    }
    const message = this.inFlight.get(receiptHandle);
    if (!message) return undefined;
    message.visibleAt = now + seconds * 1000;
    if (seconds === 0) {
      this.inFlight.delete(receiptHandle);
      message.receiptHandle = undefined;
      if (this.head > 0) this.ready[--this.head] = message;
      else this.ready.unshift(message);
    }
    return message;
  }

  private takeStandard(max: number): StoredMessage[] {
    this.promoteDue();
    const taken: StoredMessage[] = [];
    while (taken.length < max && this.head < this.ready.length) {
      const message = this.ready[this.head++]!;
      if (this.redrive(message)) continue;
      this.receive(message);
      this.inFlight.set(message.receiptHandle!, message);
      taken.push(message);
    }
    if (this.head > 1024 && this.head * 2 > this.ready.length) {
      this.ready.splice(0, this.head);
      this.head = 0;
    }
    return taken;
  }

  /** SQS FIFO: in order, several per group, and nothing from a group with a message in flight or not yet visible. */
  private takeFifo(max: number): StoredMessage[] {
    const now = this.options.now();
    const locked = new Set(this.ordered.filter((m) => m.receiptHandle !== undefined && m.visibleAt > now).map((m) => m.groupId));
    const taken: StoredMessage[] = [];
    for (const message of [...this.ordered]) {
      if (taken.length === max) break;
      if (locked.has(message.groupId)) continue;
      if (message.visibleAt > now) {
        locked.add(message.groupId);
        continue;
      }
      if (this.redrive(message)) {
        this.ordered.splice(this.ordered.indexOf(message), 1);
        continue;
      }
      this.receive(message);
      taken.push(message);
    }
    return taken;
  }

  /** Messages whose delay or visibility timeout has run out become visible. */
  private promoteDue(): void {
    const now = this.options.now();
    // Values, not entries: this runs on every receive, over every message in flight.
    for (const message of this.inFlight.values()) {
      if (message.visibleAt > now) continue;
      this.inFlight.delete(message.receiptHandle!);
      message.receiptHandle = undefined;
      this.ready.push(message);
    }
    for (let i = this.delayed.length - 1; i >= 0; i--) {
      if (this.delayed[i]!.visibleAt <= now) this.ready.push(...this.delayed.splice(i, 1));
    }
  }

  /** The redrive: a message received `maxReceiveCount` times leaves at its next receive. */
  private redrive(message: StoredMessage): boolean {
    const { maxReceiveCount } = this.options;
    if (maxReceiveCount === undefined || message.receiveCount < maxReceiveCount) return false;
    this.redriven++;
    this.redrivenIds.push(message.id);
    this.redrivenBodies.push(message.body);
    return true;
  }

  private receive(message: StoredMessage): void {
    const now = this.options.now();
    message.receiveCount++;
    message.receiptHandle = `rh-${++this.handles}`;
    message.visibleAt = now + this.options.visibilityTimeoutMs;
    message.firstReceivedAt ??= now;
    this.mostReceives = Math.max(this.mostReceives, message.receiveCount);
  }
}
