import type { CancelTimer, WorkerTimers } from '../time/timers.js';
/** One entry's fate in a batch call. */
export type EntryOutcome = { ok: true; messageId?: string } | { ok: false; code: string | undefined; message: string; cause?: unknown };

export interface BatcherOptions<Entry> {
  /** SQS batch calls take at most 10 entries. */
  maxEntries: number;
  /** A batch waits at most this long for company before it is sent. */
  maxWaitMs: number;
  /** SQS also caps a batch's total payload; entries that would exceed it start a new batch. */
  maxBytes?: number;
  sizeOf?: (entry: Entry) => number;
  /** Sends one batch and reports each entry's outcome, by position. */
  send: (entries: Entry[]) => Promise<EntryOutcome[]>;
  timers: WorkerTimers;
}

interface Pending<Entry> {
  entry: Entry;
  bytes: number;
  resolve: (outcome: EntryOutcome) => void;
}

/**
 * Collects entries into SQS batch calls: sent when full, or after a short wait.
 * Each `add` resolves with that entry's own outcome, so a `Failed` entry in a batch
 * is never mistaken for success, and a failed call fails every entry in it.
 */
export class Batcher<Entry> {
  private queue: Pending<Entry>[] = [];
  private queuedBytes = 0;
  private cancelWait: CancelTimer | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: BatcherOptions<Entry>) {}

  add(entry: Entry): Promise<EntryOutcome> {
    const bytes = this.options.sizeOf?.(entry) ?? 0;
    if (this.options.maxBytes !== undefined && this.queuedBytes + bytes > this.options.maxBytes && this.queue.length > 0) {
      this.sendQueued();
    }
    return new Promise((resolve) => {
      this.queue.push({ entry, bytes, resolve });
      this.queuedBytes += bytes;
      if (this.queue.length >= this.options.maxEntries) this.sendQueued();
      else this.cancelWait ??= this.options.timers.after(this.options.maxWaitMs, () => this.sendQueued());
    });
  }

  /** Sends whatever is queued and waits for every call under way. */
  async flush(): Promise<void> {
    this.sendQueued();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private sendQueued(): void {
    this.cancelWait?.();
    this.cancelWait = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxEntries);
      this.queuedBytes -= batch.reduce((sum, p) => sum + p.bytes, 0);
      const call = this.sendBatch(batch).finally(() => this.inFlight.delete(call));
      this.inFlight.add(call);
    }
  }

  private async sendBatch(batch: Pending<Entry>[]): Promise<void> {
    let outcomes: EntryOutcome[];
    try {
      outcomes = await this.options.send(batch.map((p) => p.entry));
    } catch (cause) {
      const failure: EntryOutcome = { ok: false, code: codeOf(cause), message: cause instanceof Error ? cause.message : String(cause), cause };
      outcomes = batch.map(() => failure);
    }
    batch.forEach((pending, index) => pending.resolve(outcomes[index] ?? { ok: false, code: undefined, message: 'no outcome reported for this entry' }));
  }
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}
