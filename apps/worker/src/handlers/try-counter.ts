import type { WorkerMessage } from '@requeue/sqs';

/** Keys remembered; the oldest are forgotten beyond this, so memory stays flat. */
const MAX_KEYS = 100_000;

/**
 * Which try of a message this call is. Normally its attempt; but a rate-limited or
 * outage-deferred call uses no attempt, and a simulated dependency that fails "n times"
 * must still recover after n calls. So: the larger of the attempt and the calls this
 * process has made for the message's idempotency key.
 */
export class TryCounter {
  private readonly calls = new Map<string, number>();

  next(message: Pick<WorkerMessage, 'attempt' | 'idempotencyKey'>): number {
    const calls = (this.calls.get(message.idempotencyKey) ?? 0) + 1;
    this.calls.delete(message.idempotencyKey);
    this.calls.set(message.idempotencyKey, calls);
    if (this.calls.size > MAX_KEYS) this.calls.delete(this.calls.keys().next().value!);
    return Math.max(message.attempt, calls);
  }
}
