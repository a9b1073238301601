import { describe, expect, it } from 'vitest';
import { cappedExponentialMs } from './backoff.js';
import { outOfRange } from './range.js';

describe('outOfRange', () => {
  it('accepts the bounds and what lies between, and says what is wrong with the rest', () => {
    expect(outOfRange(1, { min: 1, max: 10 })).toBeUndefined();
    expect(outOfRange(10, { min: 1, max: 10 })).toBeUndefined();
    expect(outOfRange(0, { min: 1, max: 10 })).toBe('must be a whole number from 1 to 10, got 0');
    expect(outOfRange(2.5, { min: 1, max: 10 })).toBe('must be a whole number from 1 to 10, got 2.5');
    expect(outOfRange(2.5, { min: 1, max: 10, whole: false })).toBeUndefined();
    expect(outOfRange(Number.NaN, { min: 0, max: 1, whole: false })).toBe('must be a number from 0 to 1, got NaN');
    expect(outOfRange('5', { min: 1, max: 10 })).toBe('must be a whole number from 1 to 10, got "5"');
  });
});

describe('cappedExponentialMs', () => {
  it('grows by the multiplier from the base, stops at the cap, and never overflows past it', () => {
    expect([0, 1, 2, 3].map((step) => cappedExponentialMs(100, 2, step, 500))).toEqual([100, 200, 400, 500]);
    expect(cappedExponentialMs(100, 2, 10_000, 60_000)).toBe(60_000);
    expect(cappedExponentialMs(0, 3, 10_000, 60_000)).toBe(0);
    expect(cappedExponentialMs(1000, 3, -1, 60_000)).toBe(1000);
  });
});
