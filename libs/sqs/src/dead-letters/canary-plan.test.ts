import { describe, expect, it } from 'vitest';
import { canaryCount, checkRedriveSettings, REDRIVE_DEFAULTS, shouldHalt } from './canary-plan.js';

describe('canary plan', () => {
  it('sizes the canary as a share of what matched, at least one message and at most all', () => {
    expect(canaryCount({ percent: 5 }, 2_500)).toBe(125);
    expect(canaryCount({ percent: 5 }, 7)).toBe(1);
    expect(canaryCount({ percent: 5 }, 0)).toBe(0);
    expect(canaryCount({ count: 50 }, 20)).toBe(20);
    expect(canaryCount({ count: 50 }, 2_500)).toBe(50);
  });

  it('halts once the share that came back reaches the threshold, never on nothing sent', () => {
    expect(shouldHalt(25, 125, 0.2)).toBe(true);
    expect(shouldHalt(24, 125, 0.2)).toBe(false);
    expect(shouldHalt(0, 0, 0.1)).toBe(false);
    expect(shouldHalt(1, 1, 1)).toBe(true);
  });

  it('names the setting that is out of range', () => {
    const ok = { ...REDRIVE_DEFAULTS };
    expect(() => checkRedriveSettings(ok)).not.toThrow();
    expect(() => checkRedriveSettings({ ...ok, canary: { count: 0 } })).toThrow(/canary count must be a whole number above 0, got 0/);
    expect(() => checkRedriveSettings({ ...ok, canary: { percent: 150 } })).toThrow(/canary percent must be above 0 and at most 100/);
    expect(() => checkRedriveSettings({ ...ok, ratePerSecond: 0 })).toThrow(/rate must be above 0/);
    expect(() => checkRedriveSettings({ ...ok, haltWhenFailing: 20 })).toThrow(/at most 1 \(100%\), got 20/);
    expect(() => checkRedriveSettings({ ...ok, watchMs: Number.NaN })).toThrow(/watch must last/);
  });
});
