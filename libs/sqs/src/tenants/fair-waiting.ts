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
    if (queue === undefined) this.byTenant.set(tenant, [item]);
    else queue.push(item);
    // A tenant new to the ring is served next: it has had no turn yet.
    if (queue === undefined || queue.length === 1) insertAt(this.ring, this.turn, tenant);
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
      this.leaveRing(tenant, index);
      this.turn = this.ring.length === 0 ? 0 : index % this.ring.length;
    } else this.turn = (index + 1) % this.ring.length;
    return { tenant, item };
  }

  /** The newest message of the tenant with the most waiting: the one to give back when too many wait. */
  takeNoisiest(): T | undefined {
    let noisiest: string | undefined;
    let most = 0;
    for (const [tenant, queue] of this.byTenant) {
      if (queue.length <= most) continue;
      noisiest = tenant;
      most = queue.length;
    }
    if (noisiest === undefined) return undefined;
    const queue = this.byTenant.get(noisiest)!;
    const item = queue.pop()!;
    this.length--;
    if (queue.length === 0) {
      const index = this.ring.indexOf(noisiest);
      this.leaveRing(noisiest, index);
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
    if (count > 0) this.running.set(tenant, count);
    else {
      this.running.delete(tenant);
      if (this.byTenant.get(tenant)?.length === 0) this.byTenant.delete(tenant);
    }
  }

  /**
   * A tenant with nothing left waiting leaves the ring; its emptied list is kept while it
   * has handlers running, for its next message (`finished` drops it). With one busy tenant
   * the list and the ring then never change shape, message after message.
   */
  private leaveRing(tenant: string, index: number): void {
    removeAt(this.ring, index);
    if (!this.running.has(tenant)) this.byTenant.delete(tenant);
  }

  /** Each tenant with a handler running or a message waiting: its running handlers, and when its oldest waiting message was sent. */
  load(sentAtOf: (item: T) => number | undefined): Map<string, { running: number; oldestSentAt: number | undefined }> {
    const load = new Map<string, { running: number; oldestSentAt: number | undefined }>();
    for (const [tenant, running] of this.running) load.set(tenant, { running, oldestSentAt: undefined });
    for (const [tenant, queue] of this.byTenant) {
      if (queue.length === 0) continue;
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

/** `splice` without the array of removed elements it allocates: this runs once per message. */
function insertAt<T>(array: T[], index: number, value: T): void {
  array.push(value);
  for (let i = array.length - 1; i > index; i--) array[i] = array[i - 1]!;
  array[index] = value;
}

function removeAt<T>(array: T[], index: number): void {
  for (let i = index; i < array.length - 1; i++) array[i] = array[i + 1]!;
  array.pop();
}
