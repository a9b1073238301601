import { InFlightLimit } from './in-flight-limit.js';
import { ReceiveLookahead } from './receive-lookahead.js';
import { FairWaiting, NO_TENANT } from '../tenants/fair-waiting.js';
import { RecentTenants } from '../tenants/recent-tenants.js';
import { TenantDwell, type TenantsSnapshot } from '../tenants/tenant-dwell.js';
import { AdmittedSlot, type MessageSlot, type SlotCapacity } from './message-slot.js';

export type { MessageSlot } from './message-slot.js';

/** A received message waiting for a running slot: how to start it, and how to give it back unstarted. */
interface Waiting {
  start: (slot: MessageSlot) => void;
  giveBack: () => Promise<void>;
  /** Its next receive would be its redrive: it is not given back to make room, only at shutdown. */
  atReceiveLimit: boolean;
  tenant: string;
  /** Epoch ms the message was sent (SentTimestamp), for the tenants' dwell. */
  sentAt: number | undefined;
}

/**
 * The worker's capacity, counted once.
 *
 * - `held`: a slot per message received (or in a receive under way) and not yet past its
 *   handler, reserved by the poller before it receives. Its capacity is `maxInFlight +
 *   prefetch`, plus what the handlers will start while a receive is under way (the
 *   lookahead, measured): at a region's round trip, messages spend most of their time in
 *   the receive. Received messages wait here for a running slot, at most `prefetch` of
 *   them (the tenants' `prefetch` while several tenants were seen in the last minute): one
 *   that lands beyond that (the handlers slowed while it was on its way) is given back at
 *   once, unstarted.
 * - `running`: a slot per message whose handler has started (or waits behind its FIFO
 *   group or for its dependency), at most `maxInFlight`.
 * - `settling`: a slot per message whose handler is done while its delete, copy or dead
 *   letter lands. A message hands its running and held slots on at that moment, so the
 *   next one starts while the settle call is under way; at most as many as may be held
 *   (`maxInFlight + 2 × prefetch`, plus the lookahead up to as many again) settle at
 *   once, beyond that a message keeps its slots until it is done.
 */
export class MessageSlots {
  readonly held: InFlightLimit;
  readonly running: InFlightLimit;
  private readonly settling: InFlightLimit;
  private readonly waiting: FairWaiting<Waiting>;
  private readonly recentTenants: RecentTenants | undefined;
  /** A start of the waiting messages is due once the current receive's messages are all admitted. */
  private startPending = false;
  private readonly dwell: TenantDwell | undefined;
  private received = 0;
  private readonly lookahead: ReceiveLookahead;
  /** Set while the first handler of a busy period waits for `activity.busy()`. */
  private gate: Promise<void> | undefined;
  /** Parked messages whose wait is over, waiting for a running slot: served before new ones. */
  private readonly resuming: Array<() => void> = [];

  constructor(
    private readonly maxInFlight: number,
    readonly prefetch: number,
    private readonly now: () => number,
    /**
     * Told before the first handler starts after none ran (the handlers wait for the promise
     * it may return, which never rejects), and when the last one finishes.
     */
    private readonly activity?: { busy(): Promise<void> | undefined; idle(): void },
    /**
     * `cap`: handlers one tenant may run while other tenants are active; `prefetch`: messages
     * held waiting while several tenants are active, to reach past one tenant's burst.
     */
    private readonly tenants?: { cap: number; prefetch: number },
  ) {
    this.waiting = new FairWaiting(tenants?.cap);
    this.recentTenants = tenants ? new RecentTenants(now) : undefined;
    this.dwell = tenants ? new TenantDwell() : undefined;
    this.lookahead = new ReceiveLookahead(prefetch, now);
    this.held = new InFlightLimit(maxInFlight + this.waitLimit);
    this.running = new InFlightLimit(maxInFlight);
    // As many as may be held: at a region's round trip a delete takes 10-30 ms to land, and
    // a smaller settle limit caps throughput at that limit per round trip.
    this.settling = new InFlightLimit(this.mayBeHeld(0, this.prefetch));
  }

  /** Messages received and not yet done: prefetched, running, waiting behind their FIFO group, or settling. */
  get inFlight(): number {
    return this.received;
  }

  /** Free slots a receive may not take now: those beyond the handlers (while a dependency is paused, say). */
  get ahead(): number {
    return this.held.capacity - this.maxInFlight;
  }

  /** A receive that brought messages took this long: the lookahead follows the round trip. */
  receiveTook(ms: number): void {
    this.lookahead.receiveTook(ms);
    this.resizeHeld();
  }

  /**
   * A received message, holding the slot its receive reserved, starts as soon as a
   * running slot is free: in arrival order within its tenant, tenants in turn. Beyond the
   * wait limit, the newest of the tenant with the most waiting goes back at once, unless
   * it is at the receive limit: it then waits over the limit. Given back, a message
   * is the next received, by this worker's or another's receive already under way, which
   * may give it back again: each time a receive more, so one at the redrive's count stays.
   */
  admit(start: (slot: MessageSlot) => void, giveBack: () => Promise<void>, tenant: string = NO_TENANT, sentAt?: number, atReceiveLimit = false): void {
    this.received++;
    this.recentTenants?.seen(tenant);
    this.waiting.push(tenant, { start, giveBack, atReceiveLimit, tenant, sentAt });
    if (this.tenants) this.startSoon();
    else this.startWaiting();
    // Behind the gate, or until a receive's messages start, the handlers' free slots wait too, as they would be running.
    if (this.waiting.length > this.waitLimit + (this.gate || this.startPending ? this.running.free : 0)) {
      const newest = this.waiting.takeNoisiest()!;
      if (newest.atReceiveLimit) this.waiting.push(newest.tenant, newest);
      else {
        this.lookahead.gaveBack();
        void this.giveBack(newest);
      }
      this.resizeHeld();
    }
  }

  /**
   * With tenants, a receive's messages are all admitted before any starts (the poller hands
   * them over in one go): a tenant further down the same receive takes its turn, rather
   * than find every slot taken by the burst ahead of it.
   */
  private startSoon(): void {
    if (this.startPending) return;
    this.startPending = true;
    queueMicrotask(() => {
      this.startPending = false;
      this.startWaiting();
    });
  }

  /**
   * How many received messages may wait for a running slot: the tenants' prefetch while
   * several tenants are active, since a burst of one would otherwise fill the prefetch and
   * leave the others' messages unreceived behind it in the queue; else the prefetch.
   */
  private get waitLimit(): number {
    return this.tenants && this.recentTenants!.several ? Math.max(this.prefetch, this.tenants.prefetch) : this.prefetch;
  }

  /** The tenants' dwell and running handlers since the last call (for metrics); undefined when tenants are off. */
  takeTenants(): TenantsSnapshot | undefined {
    return this.dwell?.take(
      this.now(),
      this.waiting.load((entry) => entry.sentAt),
    );
  }

  /** Gives every prefetched message back unstarted (at shutdown), and resolves once they are. */
  async giveBackWaiting(): Promise<void> {
    await Promise.all(this.waiting.drain().map((entry) => this.giveBack(entry)));
  }

  private giveBack(entry: Waiting): Promise<void> {
    return entry.giveBack().finally(() => {
      this.received--;
      this.held.release(1);
    });
  }

  /** Resolves once nothing is running; the settling may still be landing. */
  whenNoneRunning(): Promise<void> {
    return this.running.whenIdle();
  }

  whenNoneSettling(): Promise<void> {
    return this.settling.whenIdle();
  }

  private startWaiting(gatePassed = false): void {
    if (this.gate) return;
    // Told before the first handler starts: the protection holds before the work begins.
    if (!gatePassed && this.running.inUse === 0 && this.waiting.length > 0 && this.running.free > 0) {
      const ready = this.activity?.busy();
      if (ready) {
        this.gate = ready.then(() => {
          this.gate = undefined;
          this.startWaiting(true);
        });
        return;
      }
    }
    while (this.resuming.length > 0 && this.running.reserve(1) === 1) this.resuming.shift()!();
    let started = 0;
    // While several tenants are active, a capped tenant leaves its slots free for the others' next messages.
    const keepCap = this.recentTenants?.several ?? false;
    for (; this.waiting.length > 0 && this.running.reserve(1) === 1; started++) {
      const next = this.waiting.take(keepCap);
      if (!next) {
        this.running.release(1);
        break;
      }
      const { tenant, item } = next;
      if (this.dwell && item.sentAt !== undefined) this.dwell.started(tenant, this.now() - item.sentAt);
      item.start(this.slot(tenant));
    }
    if (started > 0) this.lookahead.started(started);
    this.resizeHeld();
  }

  /**
   * Sizes the held and settle limits to the lookahead, read once (it reads the clock).
   * While the prefetch is full no receive looks ahead: whatever it brought would land on
   * the full prefetch unless handlers start first, and a message given back frees the
   * slot a receive then uses to bring it back. With handlers that stall, that loop gave
   * the same messages back again and again (in the engine alone, up to the redrive).
   */
  private resizeHeld(): void {
    const allowance = this.lookahead.allowance;
    const waitLimit = this.waitLimit;
    this.held.resize(this.maxInFlight + waitLimit + (this.waiting.length >= waitLimit ? 0 : allowance));
    this.settling.resize(this.mayBeHeld(allowance, waitLimit));
  }

  /**
   * Running, waiting and in receives under way; the lookahead counts for at most twice
   * the bound without it, so the bodies a worker may keep in memory stay bounded whatever
   * rate it measures.
   */
  private mayBeHeld(allowance: number, waitLimit: number): number {
    const bound = this.maxInFlight + this.prefetch + waitLimit;
    return bound + Math.min(allowance, bound);
  }

  private slot(tenant: string): MessageSlot {
    this.waiting.started(tenant);
    return new AdmittedSlot(this.capacity, tenant);
  }

  /** What each message's slot may do to the counts: made once, shared by every slot. */
  private readonly capacity: SlotCapacity = {
    reserveSettling: () => this.settling.reserve(1) === 1,
    releaseSettling: () => this.settling.release(1),
    releaseHeld: () => this.held.release(1),
    leaveRunning: (tenant, parking) => {
      this.waiting.finished(tenant);
      this.running.release(1);
      if (!parking) this.held.release(1);
      this.startWaiting();
      if (!parking && this.running.inUse === 0) this.activity?.idle();
    },
    resume: () =>
      new Promise<void>((resolve) => {
        this.resuming.push(resolve);
        this.startWaiting();
      }),
    runsAgain: (tenant) => this.waiting.started(tenant),
    forget: () => {
      this.received--;
    },
  };
}
