/**
 * One message's slot: `handOff` once its handler is done, `done` once it is settled. A
 * message waiting in the worker between two runs `park`s its running slot for the others
 * (false when it may not: it keeps it) and `unpark`s before it runs again, ahead of the
 * messages not yet started.
 */
export interface MessageSlot {
  handOff(): void;
  park(): boolean;
  unpark(): Promise<void>;
  done(): void;
}

/** What a slot asks of the worker's capacity (`MessageSlots`). */
export interface SlotCapacity {
  /** Takes a settling slot: false when none is free. */
  reserveSettling(): boolean;
  releaseSettling(): void;
  releaseHeld(): void;
  /** The tenant's handler is done or parked: its running slot, and unless parked its held slot, go to the next message. */
  leaveRunning(tenant: string, parking: boolean): void;
  /** Resolves once a running slot is free for a parked message, ahead of the messages not yet started. */
  resume(): Promise<void>;
  /** The tenant runs again (a parked message unparked). */
  runsAgain(tenant: string): void;
  /** A received message is done with. */
  forget(): void;
}

/**
 * The slot of a message admitted to run, as one object: made once per message, where a
 * closure per method and their shared scope were five allocations.
 */
export class AdmittedSlot implements MessageSlot {
  private state: 'running' | 'parked' | 'settling' | 'done' = 'running';

  constructor(
    private readonly capacity: SlotCapacity,
    private readonly tenant: string,
  ) {}

  handOff(): void {
    if (this.state !== 'running' || !this.capacity.reserveSettling()) return;
    this.state = 'settling';
    this.capacity.leaveRunning(this.tenant, false);
  }

  /** Parked, it counts among the settling (shutdown waits for it) and keeps its held slot; the worker stays busy (task protection) while it waits. */
  park(): boolean {
    if (this.state !== 'running' || !this.capacity.reserveSettling()) return false;
    this.state = 'parked';
    this.capacity.leaveRunning(this.tenant, true);
    return true;
  }

  async unpark(): Promise<void> {
    if (this.state !== 'parked') return;
    await this.capacity.resume();
    this.capacity.releaseSettling();
    this.capacity.runsAgain(this.tenant);
    this.state = 'running';
  }

  /** Bound: handed to `finally` as it is. */
  readonly done = (): void => {
    if (this.state === 'done') return;
    this.capacity.forget();
    if (this.state === 'running') this.capacity.leaveRunning(this.tenant, false);
    else this.capacity.releaseSettling();
    if (this.state === 'parked') this.capacity.releaseHeld();
    this.state = 'done';
  };
}
