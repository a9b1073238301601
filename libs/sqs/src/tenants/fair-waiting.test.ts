import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairWaiting } from './fair-waiting.js';

const takeAll = <T>(waiting: FairWaiting<T>) => {
  const taken: Array<{ tenant: string; item: T }> = [];
  for (let next = waiting.take(); next; next = waiting.take()) taken.push(next);
  return taken;
};

describe('FairWaiting', () => {
  it('is first in, first out with one tenant', () => {
    const waiting = new FairWaiting<number>(2);
    for (let i = 0; i < 5; i++) waiting.push('a', i);
    expect(takeAll(waiting).map((t) => t.item)).toEqual([0, 1, 2, 3, 4]);
  });

  it("serves a quiet tenant's message next after a noisy tenant's burst, not after the burst", () => {
    const waiting = new FairWaiting<string>();
    for (let i = 0; i < 20; i++) waiting.push('noisy', `n${i}`);
    expect(waiting.take()?.item).toBe('n0');
    waiting.push('quiet', 'q0');
    waiting.push('quiet', 'q1');
    const order = takeAll(waiting).map((t) => t.item);
    expect(order.indexOf('q0')).toBe(0);
    expect(order.indexOf('q1')).toBe(2);
  });

  it('passes over a tenant at its cap while another waits, and runs it on when none does', () => {
    const waiting = new FairWaiting<string>(2);
    waiting.push('a', 'a0');
    waiting.push('a', 'a1');
    waiting.push('a', 'a2');
    waiting.started('a');
    waiting.started('a');
    waiting.push('b', 'b0');
    expect(waiting.take()).toEqual({ tenant: 'b', item: 'b0' });
    // Only the capped tenant waits: no slot stays idle for it.
    expect(waiting.take()).toEqual({ tenant: 'a', item: 'a0' });
    waiting.finished('a');
    waiting.finished('a');
    expect(waiting.take()?.item).toBe('a1');
  });

  it('keeps the cap when asked to: nothing to take while every waiting tenant is at it', () => {
    const waiting = new FairWaiting<string>(1);
    waiting.push('a', 'a0');
    waiting.push('a', 'a1');
    waiting.started('a');
    expect(waiting.take(true)).toBeUndefined();
    expect(waiting.length).toBe(2);
    waiting.finished('a');
    expect(waiting.take(true)).toEqual({ tenant: 'a', item: 'a0' });
  });

  it('serves a tenant next when its message arrives after its list emptied, while its handler still runs', () => {
    const waiting = new FairWaiting<string>();
    waiting.push('a', 'a0');
    expect(waiting.take()).toEqual({ tenant: 'a', item: 'a0' });
    waiting.started('a');
    waiting.push('b', 'b0');
    waiting.push('b', 'b1');
    expect(waiting.take()?.item).toBe('b0');
    waiting.push('a', 'a1');
    expect(takeAll(waiting).map((t) => t.item)).toEqual(['a1', 'b1']);
    waiting.finished('a');
    expect([...waiting.load(() => undefined).keys()]).toEqual([]);
  });

  it('gives back the newest message of the tenant with the most waiting', () => {
    const waiting = new FairWaiting<string>();
    ['a0', 'a1', 'a2'].forEach((item) => waiting.push('a', item));
    waiting.push('b', 'b0');
    expect(waiting.takeNoisiest()).toBe('a2');
    expect(waiting.length).toBe(3);
    expect(
      takeAll(waiting)
        .map((t) => t.item)
        .sort(),
    ).toEqual(['a0', 'a1', 'b0']);
  });

  it('loses and repeats nothing, and keeps each tenant in arrival order, whatever the interleaving', () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('push' as const), tenant: fc.constantFrom('a', 'b', 'c', '') }),
      fc.record({ op: fc.constantFrom('take' as const, 'noisiest' as const, 'finish' as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), fc.integer({ min: 1, max: 4 }), (steps, cap) => {
        const waiting = new FairWaiting<{ tenant: string; n: number }>(cap);
        const pushed: Array<{ tenant: string; n: number }> = [];
        const out: Array<{ tenant: string; n: number }> = [];
        const started: string[] = [];
        for (const s of steps) {
          if (s.op === 'push') {
            const item = { tenant: s.tenant, n: pushed.length };
            pushed.push(item);
            waiting.push(s.tenant, item);
          } else if (s.op === 'take') {
            const next = waiting.take();
            if (next) {
              expect(next.tenant).toBe(next.item.tenant);
              waiting.started(next.tenant);
              started.push(next.tenant);
              out.push(next.item);
            }
          } else if (s.op === 'noisiest') {
            const item = waiting.takeNoisiest();
            if (item) out.push(item);
          } else if (started.length > 0) waiting.finished(started.shift()!);
          expect(waiting.length).toBe(pushed.length - out.length);
        }
        const taken = takeAll(waiting).map((t) => t.item);
        expect([...out, ...taken].map((i) => i.n).sort((x, y) => x - y)).toEqual(pushed.map((i) => i.n));
        for (const tenant of ['a', 'b', 'c', '']) {
          const order = taken.filter((i) => i.tenant === tenant).map((i) => i.n);
          expect(order).toEqual([...order].sort((x, y) => x - y));
        }
      }),
    );
  });
});
