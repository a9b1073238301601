/**
 * What a message's processing did to its place in the queue. `gone`: it left the queue
 * (deleted after success, or after its dead letter landed). `stays`: it is still in the
 * queue, hidden for a retry or a deferral, released, or left after a failed call.
 */
export type Settled = 'gone' | 'stays';

/** A delivery waiting its turn in its group: how to run it, give it back, or drop it. */
export interface GroupEntry {
  messageId: string;
  run: () => Promise<Settled>;
  giveBack: () => Promise<void>;
  /** Let go without a call to SQS: a newer delivery of its group supersedes this one (see `run`). */
  drop: () => Promise<void>;
}

interface Queued extends GroupEntry {
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
   * Runs the entry once every message of the group received before it has left the queue,
   * or gives it back instead when one of them stays. A delivery of a message this group
   * already holds means SQS restarted the group there: the visibility of one of its
   * messages ran out while the worker held it (a failed heartbeat), so SQS counts every
   * message from that one on as not yet done and delivers them again, in order. The
   * deliveries queued here before it are stale, and running them would run later messages
   * ahead of the redelivered one: they are dropped, and the group goes on with the new ones.
   */
  async run(groupId: string, entry: GroupEntry): Promise<void> {
    const finished = new Promise<void>((done) => {
      const queue = this.groups.get(groupId);
      if (queue) {
        if (queue.some((queued) => queued.messageId === entry.messageId)) this.dropWaiting(queue);
        queue.push({ ...entry, done });
        this.behind += 1;
      } else {
        this.groups.set(groupId, [{ ...entry, done }]);
        void this.drain(groupId);
      }
    });
    await finished;
  }

  /** Drops every delivery waiting behind the group's running head. */
  private dropWaiting(queue: Queued[]): void {
    const stale = queue.splice(1);
    this.behind -= stale.length;
    for (const entry of stale)
      void entry
        .drop()
        .catch(() => undefined)
        .finally(entry.done);
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
