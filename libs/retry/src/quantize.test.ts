import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quantizeDelaySeconds } from './quantize.js';
import { seededRandom } from './random.js';

describe('quantizeDelaySeconds', () => {
  it('always yields a whole number of seconds in [0, 900]', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (ms, u) => {
        const seconds = quantizeDelaySeconds(ms, () => u);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(0);
        expect(seconds).toBeLessThanOrEqual(900);
      }),
    );
  });

  it('preserves the mean delay within 2% over 10,000 draws (randomized rounding)', () => {
    // From 2 s up, 2% is over 8 standard errors of a 10,000-draw mean, so this cannot flake;
    // below a second a 0-or-1 draw is too noisy for any fixed relative bound.
    fc.assert(
      fc.property(fc.double({ min: 2000, max: 890_000, noNaN: true }), fc.integer(), (ms, seed) => {
        const rng = seededRandom(seed);
        let total = 0;
        for (let i = 0; i < 10_000; i++) total += quantizeDelaySeconds(ms, rng);
        expect(Math.abs(total / 10_000 - ms / 1000) / (ms / 1000)).toBeLessThan(0.02);
      }),
      { numRuns: 50 },
    );
  });

  it('keeps sub-second jitter visible, where Math.ceil would erase it', () => {
    const rng = seededRandom(7);
    const draws = new Set<number>();
    for (let i = 0; i < 100; i++) draws.add(quantizeDelaySeconds(1300, rng));
    expect([...draws].sort()).toEqual([1, 2]);
  });
});
