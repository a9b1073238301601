/** The tenant of messages whose key names none: they share it. */
export const NO_TENANT = '';

/**
 * Received messages waiting for a running slot, taken round-robin across their tenants, so
 * a tenant's burst queues behind its own messages and not in front of everyone else's.
 * With a cap, a tenant that runs that many is passed over while another tenant has a
 * message waiting; when none does, it runs on, unless the caller keeps the cap (`take(true)`:
 * while other tenants are active, a slot stays free for their next message). With one
 * tenant this is a plain first-in, first-out list.
 */
export class FairWaiting<T> {
  private readonly byTenant = new Map<string, T[]>();
  /** Tenants with a message waiting, in round-robin order; `turn` is the next to serve. */
  private ring: string[] = [];
  private turn = 0;
  private readonly running = new Map<string, number>();
  length = 0;

  constructor(private readonly cap: number = Number.POSITIVE_INFINITY) {}

  push(tenant: string, item: T): void {
    const queue = this.byTenant.get(tenant);
    if (queue) queue.push(item);
    else {
      this.byTenant.set(tenant, [item]);
      // A tenant new to the ring is served next: it has had no turn yet.
      this.ring.splice(this.turn, 0, tenant);
    }
    this.length++;
  }

  /**
   * The next message to start, and its tenant: the first tenant in turn under its cap; when
   * every waiting tenant is at its cap, the one whose turn it is, or none with `keepCap`.
   */
  take(keepCap = false): { tenant: string; item: T } | undefined {
    if (this.ring.length === 0) return undefined;
    let index = keepCap ? -1 : this.turn % this.ring.length;
    for (let offset = 0; offset < this.ring.length; offset++) {
      const candidate = (this.turn + offset) % this.ring.length;
      if ((this.running.get(this.ring[candidate]!) ?? 0) < this.cap) {
        index = candidate;
        break;
      }
    }
    if (index === -1) return undefined;
    const tenant = this.ring[index]!;
    const queue = this.byTenant.get(tenant)!;
    const item = queue.shift()!;
    this.length--;
    if (queue.length === 0) {
      this.byTenant.delete(tenant);
      this.ring.splice(index, 1);
      this.turn = this.ring.length === 0 ? 0 : index % this.ring.length;
    } else this.turn = (index + 1) % this.ring.length;
    return { tenant, item };
  }

  /** The newest message of the tenant with the most waiting: the one to give back when too many wait. */
  takeNoisiest(): T | undefined {
    let noisiest: string | undefined;
    for (const [tenant, queue] of this.byTenant) if (noisiest === undefined || queue.length > this.byTenant.get(noisiest)!.length) noisiest = tenant;
    if (noisiest === undefined) return undefined;
    const queue = this.byTenant.get(noisiest)!;
    const item = queue.pop()!;
    this.length--;
    if (queue.length === 0) {
      this.byTenant.delete(noisiest);
      const index = this.ring.indexOf(noisiest);
      this.ring.splice(index, 1);
      if (index < this.turn) this.turn--;
      if (this.ring.length > 0) this.turn %= this.ring.length;
      else this.turn = 0;
    }
    return item;
  }

  /** Every waiting message, emptied (at shutdown). */
  drain(): T[] {
    const all = this.ring.flatMap((tenant) => this.byTenant.get(tenant)!);
    this.byTenant.clear();
    this.ring = [];
    this.turn = 0;
    this.length = 0;
    return all;
  }

  started(tenant: string): void {
    this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
  }

  finished(tenant: string): void {
    const count = (this.running.get(tenant) ?? 1) - 1;
    if (count === 0) this.running.delete(tenant);
    else this.running.set(tenant, count);
  }

  /** Each tenant with a handler running or a message waiting: its running handlers, and when its oldest waiting message was sent. */
  load(sentAtOf: (item: T) => number | undefined): Map<string, { running: number; oldestSentAt: number | undefined }> {
    const load = new Map<string, { running: number; oldestSentAt: number | undefined }>();
    for (const [tenant, running] of this.running) load.set(tenant, { running, oldestSentAt: undefined });
    for (const [tenant, queue] of this.byTenant) {
      let oldestSentAt: number | undefined;
      for (const item of queue) {
        const sentAt = sentAtOf(item);
        if (sentAt !== undefined && (oldestSentAt === undefined || sentAt < oldestSentAt)) oldestSentAt = sentAt;
      }
      load.set(tenant, { running: this.running.get(tenant) ?? 0, oldestSentAt });
    }
    return load;
  }
}
