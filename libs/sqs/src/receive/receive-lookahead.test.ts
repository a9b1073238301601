import { describe, expect, it } from 'vitest';
import { ReceiveLookahead } from './receive-lookahead.js';

/** A lookahead on a clock the test moves, fed `perMs` starts a millisecond for `ms`; `feed` feeds it more. */
function fed(prefetch: number, perMs: number, ms: number) {
  let now = 0;
  const lookahead = new ReceiveLookahead(prefetch, () => now);
  const feed = (rate: number, duration: number) => {
    for (let t = 0; t < duration; t++) {
      now++;
      lookahead.started(rate);
    }
  };
  feed(perMs, ms);
  return { lookahead, feed, advance: (by: number) => (now += by) };
}

describe('ReceiveLookahead: what receives may bring beyond the prefetch while under way', () => {
  it('is a round trip of starts less the room kept for receives that land together: 60% of the prefetch with nothing given back', () => {
    const { lookahead } = fed(50, 10, 2000);
    lookahead.receiveTook(15);
    // 10 starts a ms × 15 ms = 150 in transit, less 30.
    expect(lookahead.allowance).toBe(120);
  });

  it('widens the room a quarter message per message given back and narrows it by 1% of that per message started, within 60-150% of the prefetch', () => {
    const { lookahead, feed } = fed(50, 10, 2000);
    lookahead.receiveTook(15);
    for (let i = 0; i < 40; i++) lookahead.gaveBack();
    expect(lookahead.allowance).toBe(110);
    for (let i = 0; i < 1000; i++) lookahead.gaveBack();
    // At most 75, one and a half prefetches.
    expect(lookahead.allowance).toBe(75);
    // 10,000 starts take 25 away (give or take the rounding of 10,000 small steps).
    feed(10, 1000);
    expect(Math.abs(lookahead.allowance - 100)).toBeLessThanOrEqual(1);
  });

  it('is nothing while the prefetch alone hides the round trip, and grows from there with no threshold', () => {
    const { lookahead, feed } = fed(50, 2, 2000);
    lookahead.receiveTook(15);
    // 2 a ms × 15 ms = 30: no more than the room.
    expect(lookahead.allowance).toBe(0);
    feed(3, 2000);
    expect(lookahead.allowance).toBe(15);
    feed(2.5, 2000);
    expect(lookahead.allowance).toBe(8);
  });

  it('is nothing before a round trip is measured, or with no prefetch', () => {
    const { lookahead } = fed(20, 5, 2000);
    expect(lookahead.allowance).toBe(0);
    const none = fed(0, 5, 2000).lookahead;
    none.receiveTook(15);
    expect(none.allowance).toBe(0);
  });

  it('follows a rising start rate within a few windows, and a falling one more slowly', () => {
    const { lookahead, feed } = fed(50, 2, 2000);
    lookahead.receiveTook(15);
    // Three 50 ms windows at 10 a ms take the rate from 2 to within 3% of 10.
    feed(10, 150);
    expect(lookahead.allowance).toBeGreaterThan(105);
    // Three windows back at 2 a ms leave it nearer 10 than 2: one slow window is not a slower worker.
    feed(2, 150);
    expect(lookahead.allowance).toBeGreaterThan(30);
    feed(1.5, 2000);
    expect(lookahead.allowance).toBe(0);
  });

  it('takes the round trip as the average, so a spread of round trips is not read as its shortest', () => {
    const { lookahead } = fed(50, 4, 2000);
    // 10-20 ms, 15 on average: 60 a round trip, 30 beyond the room; the shortest (10 ms) would say 10.
    for (let i = 0; i < 100; i++) lookahead.receiveTook(i % 2 === 0 ? 10 : 20);
    expect(lookahead.allowance).toBeGreaterThan(25);
  });

  it('counts a round trip at most twice the shortest seen lately: beyond that it is the event loop', () => {
    const { lookahead, feed } = fed(50, 3, 2000);
    // Mostly 40 ms on a busy loop, but the network answers in 5: 3 × 10 = 30 a round trip, no more than the room.
    lookahead.receiveTook(5);
    for (let i = 0; i < 100; i++) lookahead.receiveTook(40);
    expect(lookahead.allowance).toBe(0);
    // Two seconds on, the 5 ms is forgotten and the average stands: 120 a round trip.
    feed(3, 1000);
    lookahead.receiveTook(40);
    feed(3, 1000);
    lookahead.receiveTook(40);
    expect(lookahead.allowance).toBe(90);
  });

  it('counts a window still open for longer than a window: handlers that stall start nothing, and no window closes', () => {
    const { lookahead, advance } = fed(50, 10, 2000);
    lookahead.receiveTook(15);
    advance(40);
    expect(lookahead.allowance).toBe(120);
    // 200 ms without a start: four windows' weight towards 0, 2.4 a ms.
    advance(160);
    expect(lookahead.allowance).toBeLessThan(10);
    advance(100);
    expect(lookahead.allowance).toBe(0);
  });

  it('after a lull, the next window brings it down', () => {
    const { lookahead, advance } = fed(30, 4, 2000);
    lookahead.receiveTook(10);
    // 4 × 10 = 40, less 60% of 30.
    expect(lookahead.allowance).toBe(22);
    advance(5000);
    lookahead.started(1);
    expect(lookahead.allowance).toBe(0);
  });
});
