import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { HeldLetters } from './held-letters.js';
import { toEntry, type DeadLetterQueue, type DlqEntry } from './scan.js';

/** A redriven dead letter that came back to the DLQ: its cause has not gone away. */
export interface RedriveFailure {
  /** The dead letter that was redriven. */
  messageId: string;
  /** The id SQS gave it when it was sent back. */
  redrivenAs: string;
  /** The dead letter it came back as. */
  returnedAs: string;
  /** Its new `x-dead-letter.reason` (`redrive-backstop` when SQS moved it). */
  reason: string;
  /** The error type it failed with this time. */
  errorType: string;
  /** The error it failed with this time, when the worker recorded one. */
  error: string | null;
}

/**
 * Watches the DLQ for redriven messages coming back. Everything the DLQ held when the
 * redrive began stays hidden (`HeldLetters`), so what a receive returns is new: a redriven
 * message that failed again is known by the id it was sent as (a message SQS's own redrive
 * moves keeps it) or by the original id its `x-retry` carried (`x-dead-letter.originalMessageId`).
 * New dead letters of live traffic are held too, and shown again when the redrive ends.
 */
export class ReturnWatch {
  private readonly watched = new Map<string, { messageId: string; redrivenAs: string }>();
  private readonly returned = new Set<string>();
  /**
   * Letters shown that nothing watched, by the ids `record` knows a return by: a batch's
   * messages are watched once its send and delete have landed, and one may fail and come
   * back before that.
   */
  private readonly unclaimed = new Map<string, DlqEntry>();
  private readonly since = Date.now();
  readonly failures: RedriveFailure[] = [];

  constructor(
    private readonly target: DeadLetterQueue,
    private readonly held: HeldLetters,
    private readonly hideSeconds: number,
    /** Told of every message shown that is not a redriven one coming back. */
    private readonly other: (entry: DlqEntry) => void,
  ) {}

  /** Watches for this dead letter, just sent back as `redrivenAs`. */
  watch(entry: DlqEntry, redrivenAs: string): void {
    const sent = { messageId: entry.message.MessageId ?? '', redrivenAs };
    this.watched.set(redrivenAs, sent);
    if (entry.record?.originalMessageId) this.watched.set(entry.record.originalMessageId, sent);
    const early = this.unclaimed.get(redrivenAs) ?? this.unclaimed.get(entry.record?.originalMessageId ?? '');
    if (early && this.record(early)) this.forgetUnclaimed(early);
  }

  /** Receives what the DLQ shows until a receive comes back empty; returns how many of it were redriven messages. */
  async poll(): Promise<number> {
    let found = 0;
    for (;;) {
      const out = await this.target.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.target.dlqUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: this.hideSeconds,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) return found;
      this.held.add(messages);
      for (const message of messages) {
        const entry = toEntry(message);
        if (this.record(entry)) found++;
        else {
          this.remember(entry);
          this.other(entry);
        }
      }
    }
  }

  /** A letter that reached the DLQ after the watch began: a return whose send has not landed yet, or live traffic's. */
  private remember(entry: DlqEntry): void {
    if (!(Number(entry.message.Attributes?.SentTimestamp) >= this.since)) return;
    for (const id of idsOf(entry)) this.unclaimed.set(id, entry);
  }

  private forgetUnclaimed(entry: DlqEntry): void {
    for (const id of idsOf(entry)) this.unclaimed.delete(id);
  }

  private record(entry: DlqEntry): boolean {
    const sent = this.watched.get(entry.message.MessageId ?? '') ?? this.watched.get(entry.record?.originalMessageId ?? '');
    if (sent === undefined || this.returned.has(sent.redrivenAs)) return false;
    this.returned.add(sent.redrivenAs);
    this.failures.push({
      ...sent,
      returnedAs: entry.message.MessageId ?? '',
      reason: entry.reason,
      errorType: entry.errorType,
      error: entry.record?.error ?? null,
    });
    return true;
  }
}

/** The ids a returned letter is known by: its own (SQS's redrive keeps it) and the original its `x-retry` carried. */
function idsOf(entry: DlqEntry): string[] {
  return [entry.message.MessageId, entry.record?.originalMessageId].filter((id): id is string => id !== undefined && id !== '');
}
