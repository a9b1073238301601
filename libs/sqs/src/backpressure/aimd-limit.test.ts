import { describe, expect, it } from 'vitest';
import { AimdLimit } from './aimd-limit.js';

function harness(max = 50) {
  const clock = { now: 1_000_000 };
  return { clock, limit: new AimdLimit({ min: 1, max, decreaseFactor: 0.5 }, () => clock.now) };
}

describe('AimdLimit', () => {
  it('starts at the maximum and halves on each overload, down to 1', () => {
    const { clock, limit } = harness();
    const seen = [limit.current];
    for (let i = 0; i < 7; i++) {
      clock.now += 10;
      limit.onOverload(clock.now);
      seen.push(limit.current);
    }
    expect(seen).toEqual([50, 25, 12, 6, 3, 1, 1, 1]);
  });

  it('counts a burst of rejections once: calls that started before the last decrease do not decrease it again', () => {
    const { clock, limit } = harness();
    const burstStartedAt = clock.now;
    clock.now += 5;
    for (let i = 0; i < 40; i++) limit.onOverload(burstStartedAt);
    expect(limit.current).toBe(25);
  });

  it('grows by one slot per window of successes, never past the maximum', () => {
    const { clock, limit } = harness(10);
    for (let i = 0; i < 5; i++) {
      clock.now += 10;
      limit.onOverload(clock.now);
    }
    expect(limit.current).toBe(1);
    limit.onSuccess();
    expect(limit.current).toBe(2);
    limit.onSuccess();
    limit.onSuccess();
    expect(limit.current).toBe(2); // 2.9: each slot takes about a limit's worth of successes
    limit.onSuccess();
    expect(limit.current).toBe(3);
    for (let i = 0; i < 1000; i++) limit.onSuccess();
    expect(limit.current).toBe(10);
  });
});
