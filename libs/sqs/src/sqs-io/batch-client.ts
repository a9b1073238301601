import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  SendMessageBatchCommand,
  type BatchResultErrorEntry,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Batcher, type EntryOutcome } from './batcher.js';
import { realTimers, type WorkerTimers } from '../time/timers.js';
import { MAX_MESSAGE_BYTES, messageBytes, type MessageAttributes } from '../message/message-attributes.js';

/** SQS batch actions take at most 10 entries (API reference, every *Batch action). */
const MAX_BATCH_ENTRIES = 10;

export interface OutgoingMessage {
  body: string;
  attributes: MessageAttributes;
  delaySeconds?: number;
  groupId?: string;
  deduplicationId?: string;
  /** The `AWSTraceHeader` system attribute: the trace context, outside the 10-attribute budget. */
  traceHeader?: string;
}

/**
 * Every write the engine makes goes through here, batched per queue and action:
 * deletes, sends (retry copies and dead letters) and visibility changes.
 */
export class SqsBatchClient {
  private readonly batchers = new Map<string, Batcher<unknown>>();
  private readonly deleters = new Map<string, Batcher<string>>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly maxWaitMs: number,
    private readonly timers: WorkerTimers = realTimers,
  ) {}

  delete(queueUrl: string, receiptHandle: string): Promise<EntryOutcome> {
    // Looked up by the URL alone: this runs once per message, and a key built per call would be a string per message.
    let batcher = this.deleters.get(queueUrl);
    if (!batcher) {
      batcher = this.batcher<string>(`delete ${queueUrl}`, async (handles) => {
        const entries = handles.map((ReceiptHandle, i) => ({ Id: String(i), ReceiptHandle }));
        const out = await this.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        return outcomes(entries.length, out.Failed);
      });
      this.deleters.set(queueUrl, batcher);
    }
    return batcher.add(receiptHandle);
  }

  send(queueUrl: string, message: OutgoingMessage): Promise<EntryOutcome> {
    return this.batcher<OutgoingMessage>(
      `send ${queueUrl}`,
      async (messages) => {
        const entries: SendMessageBatchRequestEntry[] = messages.map((m, i) => ({
          Id: String(i),
          MessageBody: m.body,
          MessageAttributes: Object.keys(m.attributes).length > 0 ? m.attributes : undefined,
          DelaySeconds: m.delaySeconds,
          MessageGroupId: m.groupId,
          MessageDeduplicationId: m.deduplicationId,
          MessageSystemAttributes: m.traceHeader === undefined ? undefined : { AWSTraceHeader: { DataType: 'String', StringValue: m.traceHeader } },
        }));
        const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        return outcomes(entries.length, out.Failed, out.Successful);
      },
      (m) => messageBytes(m.body, m.attributes),
    ).add(message);
  }

  changeVisibility(queueUrl: string, receiptHandle: string, visibilityTimeoutSeconds: number): Promise<EntryOutcome> {
    return this.batcher<{ receiptHandle: string; seconds: number }>(`visibility ${queueUrl}`, async (changes) => {
      const entries = changes.map((c, i) => ({ Id: String(i), ReceiptHandle: c.receiptHandle, VisibilityTimeout: c.seconds }));
      const out = await this.sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      return outcomes(entries.length, out.Failed);
    }).add({ receiptHandle, seconds: visibilityTimeoutSeconds });
  }

  /** Sends everything queued and waits for every call under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.batchers.values()].map((b) => b.flush()));
  }

  private batcher<Entry>(key: string, send: (entries: Entry[]) => Promise<EntryOutcome[]>, sizeOf?: (entry: Entry) => number): Batcher<Entry> {
    let batcher = this.batchers.get(key) as Batcher<Entry> | undefined;
    if (!batcher) {
      batcher = new Batcher<Entry>({
        maxEntries: MAX_BATCH_ENTRIES,
        maxWaitMs: this.maxWaitMs,
        send,
        timers: this.timers,
        ...(sizeOf ? { sizeOf, maxBytes: MAX_MESSAGE_BYTES } : {}),
      });
      this.batchers.set(key, batcher as Batcher<unknown>);
    }
    return batcher;
  }
}

const DONE: EntryOutcome = Object.freeze({ ok: true });

/** Each entry's outcome, by its index-valued `Id`; a sent message's id where SQS gave one. */
function outcomes(count: number, failed: BatchResultErrorEntry[] | undefined, sent?: Array<{ Id?: string; MessageId?: string }>): EntryOutcome[] {
  const result: EntryOutcome[] = new Array<EntryOutcome>(count).fill(DONE);
  for (const success of sent ?? []) {
    const index = Number(success.Id);
    if (Number.isInteger(index) && index >= 0 && index < count && success.MessageId) result[index] = { ok: true, messageId: success.MessageId };
  }
  for (const failure of failed ?? []) {
    const index = Number(failure.Id);
    if (Number.isInteger(index) && index >= 0 && index < count) {
      result[index] = { ok: false, code: failure.Code, message: failure.Message ?? failure.Code ?? 'failed' };
    }
  }
  return result;
}
