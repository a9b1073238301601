import type { DeadLetterOutcome } from './outcome.js';

/** What is left to do for a message whose outcome was decided but not fully carried out. */
export type Unfinished = { kind: 'delete' } | DeadLetterOutcome;

/**
 * Settlements SQS refused after the SDK's own tries: a delete (the message had succeeded,
 * or its copy or dead letter was already sent) or a dead letter's send. SQS delivers such
 * a message again; when it comes back to this worker, the rest is done without running
 * the handler again: no duplicate run, and no attempt past the policy. Bounded, oldest
 * forgotten first; another worker, or this one after a restart, runs it as a redelivery.
 */
export class UnfinishedSettlements {
  private readonly pending = new Map<string, Unfinished>();

  constructor(private readonly capacity = 10_000) {}

  remember(messageId: string, rest: Unfinished): void {
    this.pending.delete(messageId);
    this.pending.set(messageId, rest);
    if (this.pending.size > this.capacity) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
  }

  /** What is left for this message, if anything; forgotten once taken. */
  take(messageId: string): Unfinished | undefined {
    const rest = this.pending.get(messageId);
    this.pending.delete(messageId);
    return rest;
  }
}
