import { InFlightLimit } from './in-flight-limit.js';

/**
 * The worker's capacity, counted once. `running` holds a slot per message received and
 * not yet done with its handler (the poller reserves them before it receives);
 * `settling` a slot per message whose handler is done while its delete, copy or dead
 * letter lands. A message hands its running slot on at that moment, so the next receive
 * overlaps the settle call; at most `maxInFlight` settle at once, beyond that a message
 * keeps its running slot until it is done.
 */
export class MessageSlots {
  readonly running: InFlightLimit;
  private readonly settling: InFlightLimit;
  private held = 0;

  constructor(maxInFlight: number) {
    this.running = new InFlightLimit(maxInFlight);
    this.settling = new InFlightLimit(maxInFlight);
  }

  /** Messages received and not yet done: running, waiting behind their FIFO group, or settling. */
  get inFlight(): number {
    return this.held;
  }

  /** A received message takes over the slot its receive reserved. */
  claim(): MessageSlot {
    this.held++;
    let state: 'running' | 'settling' | 'done' = 'running';
    return {
      handOff: () => {
        if (state === 'running' && this.settling.reserve(1) === 1) {
          state = 'settling';
          this.running.release(1);
        }
      },
      done: () => {
        if (state === 'done') return;
        this.held--;
        (state === 'running' ? this.running : this.settling).release(1);
        state = 'done';
      },
    };
  }

  /** Resolves once nothing is running; the settling may still be landing. */
  whenNoneRunning(): Promise<void> {
    return this.running.whenIdle();
  }

  whenNoneSettling(): Promise<void> {
    return this.settling.whenIdle();
  }
}

/** One message's slot: `handOff` once its handler is done, `done` once it is settled. */
export interface MessageSlot {
  handOff(): void;
  done(): void;
}
