import { ChangeMessageVisibilityBatchCommand, type Message } from '@aws-sdk/client-sqs';
import { releaseDeadLetters, type DeadLetterQueue } from './scan.js';

/**
 * Dead letters a long operation has received and keeps hidden while it works, so that
 * whatever the DLQ shows it meanwhile is new: a redriven message coming back. Their
 * hiding is renewed every half of `hideSeconds`; if the process dies, SQS shows them again
 * within `hideSeconds`. `release` shows the ones not deleted again at once.
 */
export class HeldLetters {
  private readonly held = new Map<string, Message>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly target: DeadLetterQueue,
    private readonly hideSeconds: number,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /** Holds these too (each receipt handle once). */
  add(messages: readonly Message[]): void {
    for (const message of messages) this.held.set(message.ReceiptHandle!, message);
    this.timer ??= setInterval(
      () => {
        this.renewing = this.renewing.then(() => this.renew());
      },
      (this.hideSeconds * 1000) / 2,
    ).unref();
  }

  /** No longer held: it was deleted. */
  forget(message: Message): void {
    this.held.delete(message.ReceiptHandle!);
  }

  /** Stops renewing and shows every message still held again. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    const messages = [...this.held.values()];
    this.held.clear();
    await releaseDeadLetters(this.target, messages);
  }

  /** A renewal that fails leaves SQS to show the message again when its hiding runs out: nothing is lost. */
  private async renew(): Promise<void> {
    const messages = [...this.held.values()];
    for (let start = 0; start < messages.length; start += 10) {
      const batch = messages.slice(start, start + 10);
      await this.target.sqs
        .send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.target.dlqUrl,
            Entries: batch.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: this.hideSeconds })),
          }),
        )
        .catch(() => undefined);
    }
  }
}
