import { describe, expect, it } from 'vitest';
import { RedrivePace } from './redrive-pace.js';

describe('RedrivePace', () => {
  it('spaces batches at the rate within a phase', () => {
    let now = 1_000;
    const pace = new RedrivePace(100, () => now);
    expect([pace.dueFor(10), pace.dueFor(10), pace.dueFor(5)]).toEqual([1_000, 1_100, 1_200]);
    now = 1_050;
    expect(pace.dueFor(10)).toBe(1_250);
  });

  it('starts a new phase on its own clock, so the watch between phases brings no burst', () => {
    let now = 0;
    const pace = new RedrivePace(100, () => now);
    pace.dueFor(10);
    pace.dueFor(10);
    now = 5_000;
    pace.startPhase();
    expect(pace.dueFor(10)).toBe(5_000);
    expect(pace.dueFor(10)).toBe(5_100);
  });

  it('measures the rate over the sending alone, whatever order the batches report in', () => {
    const pace = new RedrivePace(100);
    pace.wentOut(100, 10);
    pace.wentOut(0, 10);
    pace.startPhase();
    pace.wentOut(5_000, 10);
    pace.wentOut(5_100, 10);
    // Two phases of 20 messages, each 0.1 s between its batches plus 0.1 s for the last one's share.
    expect(pace.achieved(40)).toBeCloseTo(100, 6);
    expect(pace.lastSentAt).toBe(5_100);
  });

  it('has no rate under two messages', () => {
    const pace = new RedrivePace(50);
    pace.wentOut(0, 1);
    expect(pace.achieved(1)).toBeNull();
  });
});
