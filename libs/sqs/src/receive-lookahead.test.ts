import { describe, expect, it } from 'vitest';
import { ReceiveLookahead } from './receive-lookahead.js';

/** A lookahead on a clock the test moves, fed `perMs` starts a millisecond for `ms`. */
function fed(ceiling: number, perMs: number, ms: number) {
  let now = 0;
  const lookahead = new ReceiveLookahead(ceiling, () => now);
  for (let t = 0; t < ms; t++) {
    now++;
    lookahead.started(perMs);
  }
  return { lookahead, advance: (by: number) => (now += by) };
}

describe('ReceiveLookahead: what receives may bring beyond the prefetch while under way', () => {
  it('allows the starts of one round trip: rate × the shortest round trip seen', () => {
    const { lookahead } = fed(50, 2, 2000);
    lookahead.receiveTook(30);
    lookahead.receiveTook(15);
    lookahead.receiveTook(40);
    // 2 starts a ms × 15 ms: a busy event loop's 30-40 ms round trips do not inflate it.
    expect(lookahead.allowance(0)).toBe(30);
  });

  it('never more than its ceiling, and nothing before a round trip is measured or with a ceiling of 0', () => {
    const { lookahead } = fed(20, 5, 2000);
    expect(lookahead.allowance(0)).toBe(0);
    lookahead.receiveTook(15);
    expect(lookahead.allowance(0)).toBe(20);
    const none = fed(0, 5, 2000).lookahead;
    none.receiveTook(15);
    expect(none.allowance(0)).toBe(0);
  });

  it('counts messages already waiting against the demand', () => {
    const { lookahead } = fed(50, 2, 2000);
    lookahead.receiveTook(15);
    expect(lookahead.allowance(10)).toBe(20);
    expect(lookahead.allowance(45)).toBe(0);
  });

  it('leaves the round trip to the prefetch while one brings no more than half of it', () => {
    const { lookahead } = fed(100, 2, 2000);
    lookahead.receiveTook(25);
    expect(lookahead.allowance(0)).toBe(0);
    lookahead.receiveTook(26);
    expect(lookahead.allowance(0)).toBe(0);
    const { lookahead: busier } = fed(100, 2.2, 2000);
    busier.receiveTook(25);
    expect(busier.allowance(0)).toBe(55);
  });

  it('halves after a message lands with the prefetch full, once per round trip, and grows back one per receive', () => {
    const { lookahead, advance } = fed(100, 10, 2000);
    lookahead.receiveTook(15);
    expect(lookahead.allowance(0)).toBe(100);
    lookahead.overflowed();
    lookahead.overflowed();
    expect(lookahead.allowance(0)).toBe(50);
    advance(200);
    lookahead.overflowed();
    expect(lookahead.allowance(0)).toBe(25);
    for (let i = 0; i < 5; i++) lookahead.receiveTook(15);
    expect(lookahead.allowance(0)).toBe(30);
  });

  it('follows the round trip down and up: the shortest of the last second or two', () => {
    const { lookahead, advance } = fed(80, 3, 2000);
    lookahead.receiveTook(15);
    advance(1000);
    lookahead.receiveTook(25);
    // The previous second's 15 ms still stands.
    expect(lookahead.allowance(0)).toBe(45);
    advance(1000);
    lookahead.receiveTook(25);
    expect(lookahead.allowance(0)).toBe(75);
  });

  it('follows the start rate: no starts for a while, and the next window brings it down', () => {
    const { lookahead, advance } = fed(60, 4, 2000);
    lookahead.receiveTook(10);
    expect(lookahead.allowance(0)).toBe(40);
    advance(5000);
    lookahead.started(1);
    expect(lookahead.allowance(0)).toBeLessThan(30);
  });
});
