import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { InFlightLimit } from './in-flight-limit.js';

describe('InFlightLimit', () => {
  it('grants at most the free slots and wakes waiters on release', async () => {
    const limit = new InFlightLimit(3);
    expect(limit.reserve(10)).toBe(3);
    expect(limit.reserve(1)).toBe(0);
    let woken = false;
    const waiting = limit.whenFree().then(() => (woken = true));
    await Promise.resolve();
    expect(woken).toBe(false);
    limit.release(2);
    await waiting;
    expect(limit.free).toBe(2);
  });

  it('resizes: a wait ends when the capacity grows, and slots in use beyond a smaller one stay in use', async () => {
    const limit = new InFlightLimit(2);
    expect(limit.reserve(2)).toBe(2);
    const waiting = limit.whenFree(undefined, 3);
    limit.resize(5);
    await waiting;
    expect(limit.free).toBe(3);
    limit.resize(1);
    expect(limit.inUse).toBe(2);
    expect(limit.free).toBe(0);
    expect(limit.reserve(1)).toBe(0);
  });

  it('ends a wait when its signal aborts', async () => {
    const limit = new InFlightLimit(1);
    limit.reserve(1);
    const stop = new AbortController();
    const waiting = limit.whenFree(stop.signal);
    stop.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(limit.free).toBe(0);
  });

  it('leaves no listener on the signal after each wait, however many waits a long-lived worker makes', async () => {
    const limit = new InFlightLimit(1);
    const stop = new AbortController();
    for (let i = 0; i < 1000; i++) {
      limit.reserve(1);
      const waiting = limit.whenFree(stop.signal);
      limit.release(1);
      await waiting;
    }
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});

describe('InFlightLimit.whenFree with a count', () => {
  it('waits until that many slots are free, capped at the capacity', async () => {
    const limit = new InFlightLimit(3);
    limit.reserve(3);
    let woken = false;
    const waiting = limit.whenFree(undefined, 10).then(() => (woken = true));
    limit.release(1);
    limit.release(1);
    await Promise.resolve();
    expect(woken).toBe(false);
    limit.release(1);
    await waiting;
    expect(limit.free).toBe(3);
  });

  it('forgets a wait whose signal aborted, so an abandoned wait is not retained', async () => {
    const limit = new InFlightLimit(2);
    limit.reserve(2);
    const gathering = new AbortController();
    const waiting = limit.whenFree(gathering.signal, 2);
    gathering.abort();
    await waiting;
    const idle = limit.whenIdle();
    limit.release(2);
    await idle;
    expect((limit as unknown as { waiters: unknown[] }).waiters).toHaveLength(0);
  });
});
