import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';
import { every } from './timers.js';
import { VirtualTime } from './virtual-time.js';

describe('VirtualTime', () => {
  it('fires timers in time order, those due together in the order they were set, moving the clock to each', async () => {
    const time = new VirtualTime(1000);
    const fired: string[] = [];
    time.after(30, () => fired.push(`c@${time.now()}`));
    time.after(10, () => fired.push(`a@${time.now()}`));
    time.after(10, () => fired.push(`b@${time.now()}`));
    await time.advance(100);
    expect(fired).toEqual(['a@1010', 'b@1010', 'c@1030']);
    expect(time.now()).toBe(1100);
  });

  it('keeps the clock in whole milliseconds, as Date.now() is, rounding a fractional delay up', async () => {
    const time = new VirtualTime(1000.7);
    const fired: number[] = [];
    time.after(2.5, () => fired.push(time.now()));
    time.after(1000 / 3, () => fired.push(time.now()));
    await time.advance(400.2);
    expect(fired).toEqual([1003, 1334]);
    expect(Number.isInteger(time.now())).toBe(true);
  });

  it('fires the live timers in order among thousands cancelled, and a cancel after firing changes nothing', async () => {
    const time = new VirtualTime();
    const fired: number[] = [];
    const cancels = Array.from({ length: 5000 }, (_, i) => time.after(1000 + i, () => fired.push(-i)));
    for (let i = 0; i < 5; i++) time.after(10 * (5 - i), () => fired.push(10 * (5 - i)));
    const early = time.after(5, () => fired.push(5));
    await time.advance(6);
    early();
    for (const cancel of cancels.slice(0, 4999)) cancel();
    await time.advance(10_000);
    expect(fired).toEqual([5, 10, 20, 30, 40, 50, -4999]);
  });

  it('lets the promise chains a timer starts settle before the next timer fires', async () => {
    const time = new VirtualTime();
    const steps: string[] = [];
    const chain = async () => {
      await sleep(5, undefined, time);
      await Promise.resolve();
      steps.push(`woke at ${time.now()}`);
      await sleep(5, undefined, time);
      steps.push(`woke again at ${time.now()}`);
    };
    void chain();
    time.after(7, () => steps.push('timer at 7'));
    await time.advance(20);
    expect(steps).toEqual(['woke at 5', 'timer at 7', 'woke again at 10']);
  });

  it('never fires a cancelled timer, and an every() stops when cancelled', async () => {
    const time = new VirtualTime();
    let ticks = 0;
    const stop = every(time, 10, () => ticks++);
    const cancel = time.after(5, () => {
      throw new Error('cancelled timers must not fire');
    });
    cancel();
    await time.advance(35);
    stop();
    await time.advance(100);
    expect(ticks).toBe(3);
  });

  it('runUntil stops once the condition holds, or when no timer is due before the limit', async () => {
    const time = new VirtualTime();
    let count = 0;
    every(time, 1000, () => count++);
    expect(await time.runUntil(() => count === 4)).toBe(true);
    expect(time.now()).toBe(4000);
    expect(await time.runUntil(() => false, 6500)).toBe(false);
    expect(count).toBe(6);
  });
});
