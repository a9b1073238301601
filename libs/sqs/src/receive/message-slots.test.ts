import { describe, expect, it } from 'vitest';
import { MessageSlots, type MessageSlot } from './message-slots.js';

/** Slots on a clock the test moves; `receive` admits messages as the poller does, a held slot reserved for each. */
function slotsOnClock(maxInFlight: number, prefetch: number) {
  let now = 0;
  const slots = new MessageSlots(maxInFlight, prefetch, () => now);
  const started: MessageSlot[] = [];
  const receive = (count: number) => {
    for (let i = 0; i < count; i++) {
      slots.held.reserve(1);
      slots.admit(
        (slot) => started.push(slot),
        async () => undefined,
      );
    }
  };
  /** Starts `perMs` messages a millisecond for `ms`, each done at once, its receives `roundTripMs` long. */
  const run = (perMs: number, ms: number, roundTripMs: number) => {
    for (let t = 0; t < ms; t++) {
      now++;
      receive(perMs);
      for (const slot of started.splice(0)) {
        slot.handOff();
        slot.done();
      }
      slots.receiveTook(roundTripMs);
    }
  };
  /** Hands messages off with their deletes never landing, a receive of `batch` at a time; how many settle before one keeps its slot. */
  const settleUntilFull = (batch: number) => {
    let settling = 0;
    for (;;) {
      receive(batch);
      for (const slot of started.splice(0)) {
        const running = slots.running.inUse;
        slot.handOff();
        if (slots.running.inUse === running) return settling;
        settling++;
      }
    }
  };
  return { slots, run, settleUntilFull };
}

describe('MessageSlots: how many messages may settle at once', () => {
  it('without the lookahead, as many as may be held: maxInFlight + 2 × prefetch', () => {
    const { settleUntilFull } = slotsOnClock(10, 10);
    expect(settleUntilFull(10)).toBe(30);
  });

  it('at a round trip, as many more as the lookahead brings, and never more than twice that', () => {
    // 5 starts a ms at 15 ms a receive: 75 messages a round trip, well past the prefetch of 10.
    const { slots, run, settleUntilFull } = slotsOnClock(10, 10);
    run(5, 300, 15);
    expect(slots.held.capacity).toBeGreaterThan(10 + 10 + 10);
    // A delete's round trip as long as a receive's: a settle limit of 30 would cap the worker at 30 a round trip.
    expect(settleUntilFull(10)).toBe(60);
  });

  it('a slow start rate leaves the lookahead, and the settle limit, where they were', () => {
    // 0.5 starts a ms at 15 ms: 7.5 a round trip, within the prefetch.
    const { run, settleUntilFull } = slotsOnClock(10, 10);
    run(1, 1, 15);
    for (let i = 0; i < 300; i++) run(0, 1, 15);
    expect(settleUntilFull(10)).toBe(30);
  });
});

describe('MessageSlots: a message waiting in the worker', () => {
  it('parks its running slot for the next message, takes one again ahead of those not yet started, and holds its place meanwhile', async () => {
    const slots = new MessageSlots(1, 2, () => 0);
    const started: string[] = [];
    const slotOf = new Map<string, MessageSlot>();
    const receive = (id: string) => {
      slots.held.reserve(1);
      slots.admit(
        (slot) => {
          started.push(id);
          slotOf.set(id, slot);
        },
        async () => undefined,
      );
    };
    receive('waiting');
    receive('next');
    receive('later');
    expect(started).toEqual(['waiting']);
    expect(slotOf.get('waiting')!.park()).toBe(true);
    expect(started).toEqual(['waiting', 'next']);
    // Its held slot stays taken: the poller may not receive past what the worker keeps in memory.
    expect(slots.inFlight).toBe(3);
    const resumed = slotOf.get('waiting')!.unpark();
    slotOf.get('next')!.handOff();
    await resumed;
    // The running slot 'next' left went to the parked message, not to 'later'.
    expect(started).toEqual(['waiting', 'next']);
    expect(slots.running.inUse).toBe(1);
    slotOf.get('waiting')!.handOff();
    expect(started).toEqual(['waiting', 'next', 'later']);
  });

  it('keeps its running slot when it may not park: not running, or every settling place taken', () => {
    const slots = new MessageSlots(1, 0, () => 0);
    let slot: MessageSlot | undefined;
    slots.held.reserve(1);
    slots.admit(
      (given) => (slot = given),
      async () => undefined,
    );
    slot!.handOff();
    expect(slot!.park()).toBe(false);
  });
});

describe('MessageSlots: a message received beyond the prefetch', () => {
  it('goes back at once, unless its next receive would be the redrive: that one waits its turn over the limit', async () => {
    const slots = new MessageSlots(1, 1, () => 0);
    const started: string[] = [];
    const givenBack: string[] = [];
    const admit = (id: string, atReceiveLimit = false) => {
      slots.held.reserve(1);
      slots.admit(
        () => started.push(id),
        async () => void givenBack.push(id),
        undefined,
        undefined,
        atReceiveLimit,
      );
    };
    admit('running');
    admit('prefetched');
    admit('beyond');
    admit('at its last receive', true);
    expect(started).toEqual(['running']);
    expect(givenBack).toEqual(['beyond']);
    // Given back only at shutdown, with the rest of the prefetch.
    await slots.giveBackWaiting();
    expect(givenBack).toEqual(['beyond', 'prefetched', 'at its last receive']);
  });
});
