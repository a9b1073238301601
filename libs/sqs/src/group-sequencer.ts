/**
 * FIFO queues promise order within a message group. SQS may hand one receive several
 * messages of the same group; this runs them one after another, and different groups
 * side by side.
 */
export class GroupSequencer {
  private readonly tails = new Map<string, Promise<void>>();

  run(groupId: string | undefined, task: () => Promise<void>): Promise<void> {
    if (groupId === undefined) return task();
    const previous = this.tails.get(groupId) ?? Promise.resolve();
    const next = previous.then(task);
    this.tails.set(groupId, next);
    void next.finally(() => {
      if (this.tails.get(groupId) === next) this.tails.delete(groupId);
    });
    return next;
  }
}
