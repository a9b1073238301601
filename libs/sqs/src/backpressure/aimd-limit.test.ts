import { describe, expect, it } from 'vitest';
import { AimdLimit, RECOVERY_QUIET_MS } from './aimd-limit.js';

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

  it(`returns from 1 to its maximum within ${RECOVERY_QUIET_MS / 1000} s and six rounds of calls once overloads stop`, () => {
    const { clock, limit } = harness(50);
    for (let i = 0; i < 6; i++) {
      clock.now += 10;
      limit.onOverload(clock.now);
    }
    const stoppedAt = clock.now;
    // Calls of 1 s each, as many at once as the limit allows: one round a second.
    let rounds = 0;
    while (limit.current < 50 && rounds < 10_000) {
      clock.now += 1000;
      rounds++;
      const running = limit.current;
      for (let call = 0; call < running; call++) limit.onSuccess();
    }
    const recoveredInMs = clock.now - stoppedAt;
    expect(limit.current).toBe(50);
    // Additive increase alone takes 49 rounds here (49 s); the slow start, 6 once quiet.
    expect(recoveredInMs).toBeLessThanOrEqual(RECOVERY_QUIET_MS + 6000);
  });
});
