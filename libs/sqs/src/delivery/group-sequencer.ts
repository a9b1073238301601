/**
 * What a message's processing did to its place in the queue. `gone`: it left the queue
 * (deleted after success, or after its dead letter landed). `stays`: it is still in the
 * queue, hidden for a retry or a deferral, released, or left after a failed call.
 */
export type Settled = 'gone' | 'stays';

interface Queued {
  run: () => Promise<Settled>;
  giveBack: () => Promise<void>;
  done: () => void;
}

/**
 * FIFO order within a message group. SQS may return several messages of one group in a
 * single receive, in order, and keeps the group locked while any of them is in flight.
 * This runs them one after another (different groups side by side), and when one stays
 * in the queue (a retry, a deferral, a release) every message queued behind it is given
 * back rather than run: SQS then returns them again after it, in order. Running them
 * would succeed and delete them while the one ahead waits out its retry, and the
 * group's order would be lost.
 */
export class GroupSequencer {
  private readonly groups = new Map<string, Queued[]>();
  private behind = 0;

  /** Messages queued behind their group's head, waiting for it to leave the queue. */
  get waitingBehindHeads(): number {
    return this.behind;
  }

  /**
   * Runs `run` once every message of the group received before it has left the queue,
   * or calls `giveBack` instead when one of them stays.
   */
  async run(groupId: string, run: () => Promise<Settled>, giveBack: () => Promise<void>): Promise<void> {
    const finished = new Promise<void>((done) => {
      const queue = this.groups.get(groupId);
      if (queue) {
        queue.push({ run, giveBack, done });
        this.behind += 1;
      } else {
        this.groups.set(groupId, [{ run, giveBack, done }]);
        void this.drain(groupId);
      }
    });
    await finished;
  }

  private async drain(groupId: string): Promise<void> {
    const queue = this.groups.get(groupId) ?? [];
    while (queue.length > 0) {
      const head = queue[0]!;
      const settled = await head.run().catch((): Settled => 'stays');
      queue.shift();
      head.done();
      if (queue.length > 0) this.behind -= settled === 'stays' ? queue.length : 1;
      if (settled === 'stays') {
        const behind = queue.splice(0);
        await Promise.all(behind.map((entry) => entry.giveBack().catch(() => undefined)));
        for (const entry of behind) entry.done();
      }
    }
    this.groups.delete(groupId);
  }
}
