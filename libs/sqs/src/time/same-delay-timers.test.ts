import { describe, expect, it } from 'vitest';
import { SameDelayTimers } from './same-delay-timers.js';
import { VirtualTime } from './virtual-time.js';

describe('SameDelayTimers', () => {
  it('fires each timer its delay after it was set, in order, and never one that was cancelled', async () => {
    const time = new VirtualTime(0);
    const timers = new SameDelayTimers(1000, time, time.now);
    const fired: Array<[string, number]> = [];
    const firing = (name: string) => ({ expired: () => fired.push([name, time.now()]) });
    timers.start(firing('a'));
    await time.advance(300);
    const b = timers.start(firing('b'));
    await time.advance(300);
    timers.start(firing('c'));
    timers.cancel(b);
    await time.advance(5000);
    expect(fired).toEqual([
      ['a', 1000],
      ['c', 1600],
    ]);
  });

  it('ignores cancelling a timer that fired or was cancelled already, and still fires the next', async () => {
    const time = new VirtualTime(0);
    const timers = new SameDelayTimers(1000, time, time.now);
    let fired = 0;
    const counting = { expired: () => (fired += 1) };
    const first = timers.start(counting);
    await time.advance(1000);
    timers.cancel(first);
    const second = timers.start(counting);
    timers.cancel(second);
    timers.cancel(second);
    timers.start(counting);
    await time.advance(1000);
    expect(fired).toBe(2);
  });

  it('leaves no timer of the clock behind once every timer is cancelled, and keeps its list to about its live timers', async () => {
    const time = new VirtualTime(0);
    let armed = 0;
    const counted = {
      after: (ms: number, fire: () => void) => {
        armed += 1;
        const cancel = time.after(ms, () => ((armed -= 1), fire()));
        return () => ((armed -= 1), cancel());
      },
    };
    const timers = new SameDelayTimers(60_000, counted, time.now);
    // One slow handler holds the front while thousands of others come and go.
    let slowFired = false;
    timers.start({ expired: () => (slowFired = true) });
    const quick = { expired: () => undefined };
    for (let i = 0; i < 5000; i++) timers.cancel(timers.start(quick));
    expect((timers as unknown as { entries: unknown[] }).entries.length).toBeLessThan(200);
    await time.advance(60_000);
    expect(slowFired).toBe(true);
    timers.cancel(timers.start(quick));
    expect(armed).toBe(0);
  });
});
