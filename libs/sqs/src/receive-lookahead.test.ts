import { describe, expect, it } from 'vitest';
import { ReceiveLookahead } from './receive-lookahead.js';

/** A lookahead on a clock the test moves, fed `perMs` starts a millisecond for `ms`; `feed` feeds it more. */
function fed(ceiling: number, perMs: number, ms: number) {
  let now = 0;
  const lookahead = new ReceiveLookahead(ceiling, () => now);
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
  it('looks ahead once a round trip brings more than the prefetch: rate × round trip', () => {
    const { lookahead } = fed(25, 2, 2000);
    lookahead.receiveTook(12, 0);
    // 2 starts a ms × 12 ms = 24: the prefetch of 25 hides the round trip alone.
    expect(lookahead.allowance(0)).toBe(0);
    const { lookahead: busier } = fed(25, 2, 2000);
    busier.receiveTook(13, 0);
    // The prefetch, and one more for the receive that brought messages.
    expect(busier.allowance(0)).toBe(26);
  });

  it('grows one a receive up to a round trip of starts with a quarter of headroom, past the prefetch', () => {
    const { lookahead } = fed(50, 8, 2000);
    for (let i = 0; i < 10; i++) lookahead.receiveTook(15, 0);
    expect(lookahead.allowance(0)).toBe(60);
    for (let i = 0; i < 200; i++) lookahead.receiveTook(15, 0);
    // 8 a ms × 15 ms = 120 in transit, × 1.25.
    expect(lookahead.allowance(0)).toBe(150);
    expect(lookahead.extent).toBe(150);
  });

  it('once looking ahead, keeps on until a round trip brings less than half the prefetch', () => {
    const { lookahead, feed } = fed(25, 3, 2000);
    lookahead.receiveTook(10, 0);
    expect(lookahead.allowance(0)).toBe(26);
    // The rate dips to 2 a ms: 20 messages a round trip, under the prefetch but over half of it.
    feed(2, 1000);
    expect(lookahead.allowance(0)).toBe(26);
    feed(1, 1000);
    expect(lookahead.allowance(0)).toBe(0);
    // Back at 2 a ms it stays off: 20 is not more than the prefetch.
    feed(2, 1000);
    expect(lookahead.allowance(0)).toBe(0);
  });

  it('nothing before a round trip is measured, or with no prefetch', () => {
    const { lookahead } = fed(20, 5, 2000);
    expect(lookahead.allowance(0)).toBe(0);
    const none = fed(0, 5, 2000).lookahead;
    none.receiveTook(15, 0);
    expect(none.allowance(0)).toBe(0);
    expect(none.extent).toBe(0);
  });

  it('counts messages already waiting against it', () => {
    const { lookahead } = fed(25, 2, 2000);
    lookahead.receiveTook(15, 0);
    expect(lookahead.allowance(10)).toBe(16);
    expect(lookahead.allowance(30)).toBe(0);
    // What settles is sized before those waiting come off.
    expect(lookahead.extent).toBe(26);
  });

  it('halves after a message lands with the prefetch full, once per round trip, and grows back one per receive', () => {
    const { lookahead, advance } = fed(100, 10, 2000);
    lookahead.receiveTook(15, 0);
    expect(lookahead.allowance(0)).toBe(101);
    lookahead.overflowed();
    lookahead.overflowed();
    expect(lookahead.allowance(0)).toBe(50);
    advance(200);
    lookahead.overflowed();
    expect(lookahead.allowance(0)).toBe(25);
    for (let i = 0; i < 5; i++) lookahead.receiveTook(15, 0);
    expect(lookahead.allowance(0)).toBe(30);
  });

  it('takes the round trip as the average, so a spread of round trips is not read as its shortest', () => {
    const { lookahead } = fed(50, 4, 2000);
    // 10-20 ms, 15 on average: 60 a round trip, past the prefetch; the shortest (10 ms) says 40.
    for (let i = 0; i < 100; i++) lookahead.receiveTook(i % 2 === 0 ? 10 : 20, 0);
    expect(lookahead.allowance(0)).toBeGreaterThan(50);
  });

  it('counts a round trip at most twice the shortest seen lately: beyond that it is the event loop', () => {
    const { lookahead, advance } = fed(50, 4, 2000);
    // Mostly 40 ms on a busy loop, but the network answers in 5: 4 × 10 = 40 a round trip, within the prefetch.
    lookahead.receiveTook(5, 0);
    for (let i = 0; i < 100; i++) lookahead.receiveTook(40, 0);
    expect(lookahead.allowance(0)).toBe(0);
    // Two seconds on, the 5 ms is forgotten and the average stands: 160 a round trip.
    advance(1000);
    lookahead.receiveTook(40, 0);
    advance(1000);
    lookahead.receiveTook(40, 0);
    expect(lookahead.allowance(0)).toBeGreaterThan(50);
  });

  it('grows only while nothing waits: a message in hand when a receive lands says it looks far enough ahead', () => {
    const { lookahead } = fed(50, 8, 2000);
    lookahead.receiveTook(15, 0);
    expect(lookahead.extent).toBe(51);
    for (let i = 0; i < 50; i++) lookahead.receiveTook(15, 3);
    expect(lookahead.extent).toBe(51);
    lookahead.receiveTook(15, 0);
    expect(lookahead.extent).toBe(52);
  });

  it('follows the start rate: after a lull the next window brings it down', () => {
    const { lookahead, advance } = fed(30, 4, 2000);
    lookahead.receiveTook(10, 0);
    expect(lookahead.allowance(0)).toBe(31);
    advance(5000);
    lookahead.started(1);
    expect(lookahead.allowance(0)).toBe(0);
  });
});
