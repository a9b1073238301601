import { describe, expect, it } from 'vitest';
import { MessageSlots, type MessageSlot } from '../receive/message-slots.js';

/**
 * One handler, a prefetch of 2 and a tenants' prefetch of 6, on a clock the test moves;
 * `receive` admits a message as the poller does (a held slot reserved for it).
 */
function tenantSlots(maxInFlight = 1, cap = Number.POSITIVE_INFINITY) {
  let now = 1_000_000;
  const slots = new MessageSlots(maxInFlight, 2, () => now, undefined, { cap, prefetch: 6 });
  const running: MessageSlot[] = [];
  const givenBack: string[] = [];
  const receive = (id: string, tenant: string, sentAt?: number) => {
    slots.held.reserve(1);
    slots.admit(
      (slot) => running.push(slot),
      async () => void givenBack.push(id),
      tenant,
      sentAt,
    );
  };
  return { slots, running, givenBack, receive, advance: (ms: number) => (now += ms), now: () => now };
}

describe('MessageSlots with tenants', () => {
  it("holds only the prefetch while one tenant is active: the rest of a's burst goes back", async () => {
    const { receive, givenBack } = tenantSlots();
    for (let i = 0; i < 6; i++) receive(`a${i}`, 'a');
    await Promise.resolve();
    // One runs, two wait: the three newest went back.
    expect(givenBack).toEqual(['a3', 'a4', 'a5']);
  });

  it("holds up to the tenants' prefetch once a second tenant is seen, to reach past one tenant's burst", async () => {
    const { receive, givenBack, slots } = tenantSlots();
    receive('b0', 'b');
    for (let i = 0; i < 8; i++) receive(`a${i}`, 'a');
    await Promise.resolve();
    // b0 runs; six of a's wait; the noisiest tenant's newest go back beyond that.
    expect(givenBack).toEqual(['a6', 'a7']);
    expect(slots.held.capacity).toBeGreaterThanOrEqual(1 + 6);
  });

  it("falls back to the prefetch a minute after the second tenant's last message", async () => {
    const { receive, givenBack, advance } = tenantSlots();
    receive('b0', 'b');
    advance(60_001);
    for (let i = 0; i < 6; i++) receive(`a${i}`, 'a');
    await Promise.resolve();
    expect(givenBack).toEqual(['a2', 'a3', 'a4', 'a5']);
  });

  it('with a cap, leaves a handler free for the other tenants while one was seen in the last minute', async () => {
    const { receive, running, advance } = tenantSlots(3, 2);
    receive('b0', 'b');
    await Promise.resolve();
    running.shift()!.done();
    for (let i = 0; i < 4; i++) receive(`a${i}`, 'a');
    await Promise.resolve();
    // a runs 2 of the 3 handlers: the third waits for b's next message.
    expect(running).toHaveLength(2);
    receive('b1', 'b');
    await Promise.resolve();
    expect(running).toHaveLength(3);
    for (const slot of running.splice(0)) slot.done();
    // A minute after b's last message, a alone gets every handler.
    advance(60_001);
    receive('a4', 'a');
    await Promise.resolve();
    expect(running).toHaveLength(3);
  });

  it("starts a receive's messages once all are admitted: a tenant behind another's burst in the same receive takes the next slot", async () => {
    const { receive, running } = tenantSlots(4, 2);
    // One receive: five of a's, then one of b's; a may run 2 of the 4 handlers while b is active.
    for (let i = 0; i < 5; i++) receive(`a${i}`, 'a');
    receive('b0', 'b');
    expect(running).toHaveLength(0);
    await Promise.resolve();
    expect(running).toHaveLength(3);
  });

  it('reports each tenant by its longest dwell, counting the wait of messages not started yet', async () => {
    const { receive, running, slots, advance, now } = tenantSlots();
    // Two receives: a0's, then b0's.
    receive('a0', 'a', now() - 40);
    await Promise.resolve();
    receive('b0', 'b', now() - 5);
    advance(100);
    // a0 started at once (dwell 40 ms); b0 has waited 105 ms behind it.
    expect(slots.takeTenants()).toEqual({
      top: [
        { tenant: 'b', maxDwellMs: 105, inFlight: 0 },
        { tenant: 'a', maxDwellMs: 40, inFlight: 1 },
      ],
      worstDwellMs: 105,
    });
    running.shift()!.done();
    advance(10);
    // A new interval: b0 started as a0 finished, 105 ms after it was sent; a ran nothing.
    expect(slots.takeTenants()).toEqual({ top: [{ tenant: 'b', maxDwellMs: 105, inFlight: 1 }], worstDwellMs: 105 });
  });

  it('names at most five tenants per interval, the worst served first', async () => {
    const { receive, running, slots, now } = tenantSlots();
    for (let i = 0; i < 8; i++) receive(`m${i}`, `t${i}`, now() - i);
    await Promise.resolve();
    for (const slot of running.splice(0)) slot.done();
    const snapshot = slots.takeTenants()!;
    expect(snapshot.top.map((t) => t.tenant)).toEqual(['t7', 't6', 't5', 't4', 't3']);
    expect(snapshot.worstDwellMs).toBe(7);
  });

  it('reports nothing when tenants are off', () => {
    expect(new MessageSlots(1, 1, () => 0).takeTenants()).toBeUndefined();
  });
});
