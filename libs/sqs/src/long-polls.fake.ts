/**
 * The long polls a fake queue holds open: each waits until something arrives or the queue
 * is closed (after which receives return at once, as a test's end needs).
 */
export class LongPolls {
  closed = false;
  private waiting: Array<() => void> = [];

  /** Resolves at the next `wake` or `close`, or after `maxMs` when given. */
  wait(maxMs?: number): Promise<void> {
    return new Promise<void>((wake) => {
      this.waiting.push(wake);
      if (maxMs !== undefined) setTimeout(wake, maxMs);
    });
  }

  wake(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }
}
