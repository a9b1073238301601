/**
 * Batches of a redrive under way at once. Each batch is two round trips (the send, then
 * the DLQ's delete) and the return watch polls between them: one at a time, a round trip
 * of 25 ms or more caps the rate below 200 a second whatever was set. A FIFO queue takes
 * one batch at a time, so its groups arrive in order.
 */
export class SendWindow {
  private readonly sending = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  /** Starts counting `send`; resolves once fewer than `size` are under way, and throws the first failure of any. */
  async add(send: Promise<void>, size: number): Promise<void> {
    this.sending.add(send);
    send.then(
      () => this.sending.delete(send),
      (error: unknown) => {
        this.sending.delete(send);
        this.failure ??= { error };
      },
    );
    while (this.sending.size >= size && this.failure === undefined) await Promise.race(this.sending).catch(() => undefined);
    if (this.failure) await this.drain();
  }

  /** Resolves once every batch has landed; throws the first failure of any. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.sending]);
    if (this.failure) throw this.failure.error;
  }
}
