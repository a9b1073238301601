import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dependencyOf, errorFingerprint, FINGERPRINT_READS } from './fingerprint.js';

describe('errorFingerprint', () => {
  it('masks what varies per message, so one cause has one fingerprint', () => {
    const a = errorFingerprint('POST https://api.example.com/orders/123?x=1: 503 for order 9f1c2d3e-0000-4aaa-8bbb-123456789abc (req 0a1b2c3d4e5f6071)');
    const b = errorFingerprint('POST https://api.example.com/orders/98: 503 for order 1e2d3c4b-1111-4ccc-9ddd-abcdefabcdef (req ffeeddccbbaa9988)');
    expect(a).toBe('POST <url>: <n> for order <id> (req <id>)');
    expect(b).toBe(a);
    expect(errorFingerprint('mail to ops@example.com failed:\n  quota   exceeded')).toBe('mail to <email> failed: quota exceeded');
  });

  it('keeps words that merely look like hex, and caps the length', () => {
    expect(errorFingerprint('deadbeef cafe decade')).toBe('deadbeef cafe decade');
    expect(errorFingerprint('x'.repeat(500))).toHaveLength(200);
  });
});

describe('dependencyOf', () => {
  it("names the first URL's host, or nothing", () => {
    expect(dependencyOf('GET https://api.example.com:8443/v1 then http://other.example: 502')).toBe('api.example.com:8443');
    expect(dependencyOf('handler timed out')).toBeUndefined();
  });
});

describe('a hostile error text (anyone who can write to the DLQ writes it)', () => {
  // The shapes that made the masking patterns scan ahead from every position: a.a.a.…, a@a.a.…, a-a:a/….
  const hostile = fc
    .tuple(
      fc.constantFrom('a', '.', '@', '-', ':', '/', '+', '1', 'f'),
      fc.constantFrom('a.', 'a@', 'a-', 'x:', '1.', 'f0'),
      fc.integer({ min: 1, max: 128 * 1024 }),
    )
    .map(([lead, unit, repeats]) => lead + unit.repeat(repeats));

  it('is read in time linear in its length, however long: at most its first 1,000 characters', () => {
    fc.assert(
      fc.property(hostile, (error) => {
        const started = performance.now();
        errorFingerprint(error);
        dependencyOf(error);
        // Before, 128 KB of `a.` took 25 s and 256 KB over four minutes; bounded, any length takes
        // a few milliseconds (the bound is loose: it must hold on a loaded machine).
        expect(performance.now() - started).toBeLessThan(1000);
        expect(errorFingerprint(error)).toBe(errorFingerprint(error.slice(0, FINGERPRINT_READS)));
      }),
      { numRuns: 40 },
    );
  });
});
