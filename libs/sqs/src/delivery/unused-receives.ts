/**
 * Receives that were not attempts. The worker counts a message's attempts from its SQS
 * receive count (a visibility-transport retry and a crash redelivery each raise it). On
 * a FIFO queue the worker also hands messages back by visibility without running them
 * or without using an attempt: a deferral, and the messages queued behind a group's
 * failed head. Each raises the receive count once more; this remembers them, so this
 * worker does not count them. Bounded, oldest forgotten first; a message received by
 * another worker is counted there without them (docs/worker.md, FIFO queues).
 */
export class UnusedReceives {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  /** The message goes back to the queue without an attempt being used. */
  add(messageId: string): void {
    this.adjust(messageId, 1);
  }

  private adjust(messageId: string, by: number): void {
    const count = (this.counts.get(messageId) ?? 0) + by;
    this.counts.delete(messageId);
    this.counts.set(messageId, count);
    if (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next().value;
      if (oldest !== undefined) this.counts.delete(oldest);
    }
  }

  /**
   * A FIFO head ran again in place: an attempt no receive counted. Remembered as a
   * negative unused receive, so that if the head is handed back later its next receive
   * counts every attempt it had.
   */
  attemptInPlace(messageId: string): void {
    this.adjust(messageId, -1);
  }

  /** Receives not counted as attempts, less attempts made without a receive. */
  of(messageId: string): number {
    return this.counts.get(messageId) ?? 0;
  }

  /** The message left the queue: nothing more to remember. */
  forget(messageId: string): void {
    this.counts.delete(messageId);
  }
}
