import { InFlightLimit } from './in-flight-limit.js';

/** A received message waiting for a running slot: how to start it, and how to give it back unstarted. */
interface Waiting {
  start: (slot: MessageSlot) => void;
  giveBack: () => Promise<void>;
}

/**
 * The worker's capacity, counted once.
 *
 * - `held`: a slot per message received and not yet past its handler, reserved by the
 *   poller before it receives. Its capacity is `maxInFlight + prefetch`, so receiving runs
 *   ahead of the handlers by at most `prefetch` messages, which wait here for a slot.
 * - `running`: a slot per message whose handler has started (or waits behind its FIFO
 *   group or for its dependency), at most `maxInFlight`.
 * - `settling`: a slot per message whose handler is done while its delete, copy or dead
 *   letter lands. A message hands its running and held slots on at that moment, so the
 *   next one starts while the settle call is under way; at most `maxInFlight + prefetch`
 *   settle at once, beyond that a message keeps its slots until it is done.
 */
export class MessageSlots {
  readonly held: InFlightLimit;
  readonly running: InFlightLimit;
  private readonly settling: InFlightLimit;
  private readonly waiting: Waiting[] = [];
  private received = 0;

  constructor(
    maxInFlight: number,
    readonly prefetch: number,
  ) {
    this.held = new InFlightLimit(maxInFlight + prefetch);
    this.running = new InFlightLimit(maxInFlight);
    // As many as may be held: at a region's round trip a delete takes 10-30 ms to land, and
    // a settle limit of maxInFlight alone would cap throughput at maxInFlight per round trip.
    this.settling = new InFlightLimit(maxInFlight + prefetch);
  }

  /** Messages received and not yet done: prefetched, running, waiting behind their FIFO group, or settling. */
  get inFlight(): number {
    return this.received;
  }

  /**
   * A received message, holding the slot its receive reserved, starts as soon as a
   * running slot is free, in the order messages arrived.
   */
  admit(start: (slot: MessageSlot) => void, giveBack: () => Promise<void>): void {
    this.received++;
    this.waiting.push({ start, giveBack });
    this.startWaiting();
  }

  /** Gives every prefetched message back unstarted (at shutdown), and resolves once they are. */
  async giveBackWaiting(): Promise<void> {
    const unstarted = this.waiting.splice(0);
    await Promise.all(
      unstarted.map((entry) =>
        entry.giveBack().finally(() => {
          this.received--;
          this.held.release(1);
        }),
      ),
    );
  }

  /** Resolves once nothing is running; the settling may still be landing. */
  whenNoneRunning(): Promise<void> {
    return this.running.whenIdle();
  }

  whenNoneSettling(): Promise<void> {
    return this.settling.whenIdle();
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.running.reserve(1) === 1) this.waiting.shift()!.start(this.slot());
  }

  private slot(): MessageSlot {
    let state: 'running' | 'settling' | 'done' = 'running';
    const leaveRunning = () => {
      this.running.release(1);
      this.held.release(1);
      this.startWaiting();
    };
    return {
      handOff: () => {
        if (state === 'running' && this.settling.reserve(1) === 1) {
          state = 'settling';
          leaveRunning();
        }
      },
      done: () => {
        if (state === 'done') return;
        this.received--;
        if (state === 'running') leaveRunning();
        else this.settling.release(1);
        state = 'done';
      },
    };
  }
}

/** One message's slot: `handOff` once its handler is done, `done` once it is settled. */
export interface MessageSlot {
  handOff(): void;
  done(): void;
}
