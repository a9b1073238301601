import { describe, expect, it } from 'vitest';
import { DispatchPace } from './dispatch-pace.js';

const START = 1_000_000;

/** 100 successes over 100 ms, then a 429 asking for 1 s: (100 + 1000) ms / 100, 5% slower, 11.55 ms apart. */
function learntPace(): { pace: DispatchPace; now: number } {
  const pace = new DispatchPace();
  for (let i = 0; i < 100; i++) pace.onSuccess(START + i, true);
  const now = START + 100;
  pace.onRateLimited(now, 1000, undefined);
  return { pace, now };
}

const spacingOf = (pace: DispatchPace) => 1000 / pace.ratePerSecond;

describe('DispatchPace', () => {
  it('learns its first pace from the successes before the first 429 and the pause it asked for', () => {
    expect(spacingOf(learntPace().pace)).toBeCloseTo(11.55, 2);
  });

  it('slows down at most twofold on one cycle that let only one call through, instead of pacing at one call every few seconds', () => {
    const { pace, now } = learntPace();
    // One success in the next 5 s (a pause, and calls rejected for their own reasons, took the rest).
    pace.onSuccess(now + 3000, true);
    pace.onRateLimited(now + 5000, 1000, now);
    // Measured alone: 5 s x 1.05 for one success, 5,250 ms apart. The 3 s of successes sped it up 1% a second first.
    expect(spacingOf(pace)).toBeCloseTo(11.55 * 0.99 ** 3 * 2, 1);
  });

  it('still reaches a limit that dropped a hundredfold, within a few cycles', () => {
    const { pace, now } = learntPace();
    let at = now;
    const spacings: number[] = [];
    // The dependency now admits one call a second.
    for (let cycle = 0; cycle < 9; cycle++) {
      const cycleStartedAt = at;
      at += 1000;
      pace.onSuccess(at - 1, true);
      pace.onRateLimited(at, 1000, cycleStartedAt);
      spacings.push(spacingOf(pace));
    }
    for (let i = 1; i < spacings.length; i++) expect(spacings[i]).toBeGreaterThanOrEqual(spacings[i - 1]! * 0.99);
    // Doubling per cycle from 11.55 ms: past 1 s apart (1.05 s measured) by the seventh cycle, and held there.
    expect(spacings[6]).toBeCloseTo(1050, -1);
    expect(spacings[8]).toBeCloseTo(1050, -1);
  });
});
