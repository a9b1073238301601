import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEnginePolicy } from './decide.js';
import type { Decision } from './decision.js';
import { NonRetryableError, RetryableError, RetryPolicyConfigError } from './errors.js';
import type { JitterInput } from './policy-config.js';
import { seededRandom } from './random.js';
import { freshRetryState, type RetryState } from './retry-state.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const MID = () => 0.5;
const atAttempt = (attempt: number, firstReceivedAt = NOW): RetryState => ({ ...freshRetryState('msg-1', firstReceivedAt), attempt });
const failure = (errorType: string, retryAfterMs?: number) => new RetryableError(`${errorType} failure`, { errorType, retryAfterMs });

function delayOf(decision: Decision): number {
  if (decision.action === 'dead-letter') throw new Error(`expected a retry, got dead-letter (${decision.reason})`);
  return decision.delaySeconds;
}

describe('decide: backoff per error type', () => {
  const noJitter = createEnginePolicy({ jitter: 'none' });

  it('grows the TEMPORARY delay by 3x from 2 s and caps it at 60 s', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => delayOf(noJitter.decide(atAttempt(attempt), failure('TEMPORARY'), NOW, MID)));
    expect(delays).toEqual([2, 6, 18, 54, 60, 60]);
  });

  it("lets a type's own maximum win over the global cap", () => {
    const policy = createEnginePolicy({ jitter: 'none', maxDelayMs: 60_000 });
    expect(delayOf(policy.decide(atAttempt(5), failure('RATE_LIMIT'), NOW, MID))).toBe(300);
    expect(delayOf(policy.decide(atAttempt(5), failure('QUOTA_EXCEEDED'), NOW, MID))).toBe(600);
  });

  it('uses the global cap for a user type without its own maximum, and DEFAULT for unknown types', () => {
    const policy = createEnginePolicy({
      jitter: 'none',
      maxDelayMs: 10_000,
      types: { WEBHOOK: { backoff: { type: 'linear', baseMs: 4000 } } },
    });
    expect([1, 2, 3].map((a) => delayOf(policy.decide(atAttempt(a), failure('WEBHOOK'), NOW, MID)))).toEqual([4, 8, 10]);
    expect(delayOf(policy.decide(atAttempt(1), failure('NEVER_HEARD_OF_IT'), NOW, MID))).toBe(2);
  });

  it('merges a partial type override over the preset', () => {
    const policy = createEnginePolicy({ jitter: 'none', types: { RATE_LIMIT: { maxDelayMs: 100_000 } } });
    expect(delayOf(policy.decide(atAttempt(1), failure('RATE_LIMIT'), NOW, MID))).toBe(60);
    expect(delayOf(policy.decide(atAttempt(3), failure('RATE_LIMIT'), NOW, MID))).toBe(100);
  });

  it('applies jitter after the cap, so capped retries stay spread out', () => {
    const policy = createEnginePolicy({ jitter: 'full' });
    const rng = seededRandom(1);
    const delays = Array.from({ length: 500 }, () => delayOf(policy.decide(atAttempt(10), failure('TEMPORARY'), NOW, rng)));
    expect(new Set(delays).size).toBeGreaterThan(50);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
  });

  it.each<[JitterInput, number, number]>([
    ['equal', 27, 54],
    [{ type: 'proportional', fraction: 0.1 }, 48, 54],
    [{ type: 'symmetric', ms: 3000 }, 51, 57],
  ])('keeps %j jitter in its band', (jitter, low, high) => {
    const policy = createEnginePolicy({ jitter });
    const rng = seededRandom(2);
    for (let i = 0; i < 300; i++) {
      const delay = delayOf(policy.decide(atAttempt(4), failure('TEMPORARY'), NOW, rng));
      expect(delay).toBeGreaterThanOrEqual(low);
      expect(delay).toBeLessThanOrEqual(high + 1);
    }
  });

  it('draws decorrelated delays between the base and the cap, stable per message', () => {
    const policy = createEnginePolicy({ types: { TEMPORARY: { backoff: { type: 'decorrelated', baseMs: 2000 } } } });
    const rng = seededRandom(3);
    for (let attempt = 1; attempt < 12; attempt++) {
      const delay = delayOf(policy.decide(atAttempt(attempt), failure('TEMPORARY'), NOW, rng));
      expect(delay).toBeGreaterThanOrEqual(2);
      expect(delay).toBeLessThanOrEqual(60);
    }
  });

  it('treats Retry-After as a floor, never retrying earlier', () => {
    const policy = createEnginePolicy({ jitter: 'full' });
    const rng = seededRandom(4);
    for (let i = 0; i < 200; i++) {
      expect(delayOf(policy.decide(atAttempt(1), failure('TEMPORARY', 7_300), NOW, rng))).toBeGreaterThanOrEqual(8);
    }
  });

  it('supports custom strategies with BullMQ-style immediate and dead-letter answers', () => {
    const custom = (answer: number | 'immediate' | 'dead-letter') =>
      createEnginePolicy({ jitter: 'none', types: { DEFAULT: { backoff: { type: 'custom', compute: () => answer } } } });
    expect(delayOf(custom(9000).decide(atAttempt(1), new Error('x'), NOW, MID))).toBe(9);
    expect(delayOf(custom('immediate').decide(atAttempt(1), new Error('x'), NOW, MID))).toBe(0);
    expect(delayOf(custom(0).decide(atAttempt(1), new Error('x'), NOW, MID))).toBe(0);
    expect(custom('dead-letter').decide(atAttempt(1), new Error('x'), NOW, MID)).toMatchObject({ action: 'dead-letter', reason: 'non-retryable' });
    expect(custom(-1).decide(atAttempt(1), new Error('x'), NOW, MID)).toMatchObject({ action: 'dead-letter', reason: 'non-retryable' });
  });

  it('falls back to the maximum delay when a custom strategy throws or answers nonsense', () => {
    const broken = createEnginePolicy({
      jitter: 'none',
      types: {
        DEFAULT: {
          maxDelayMs: 30_000,
          backoff: {
            type: 'custom',
            compute: () => {
              throw new Error('bug');
            },
          },
        },
      },
    });
    expect(delayOf(broken.decide(atAttempt(1), new Error('x'), NOW, MID))).toBe(30);
  });

  it('carries the next attempt, the error and the identity in the new state; the body is untouched by design', () => {
    const decision = noJitter.decide(atAttempt(2), failure('TEMPORARY'), NOW, MID);
    expect(decision).toMatchObject({
      action: 'retry',
      state: { v: 1, attempt: 3, firstReceivedAt: NOW, originalMessageId: 'msg-1', lastErrorType: 'TEMPORARY', lastError: 'TEMPORARY failure' },
    });
  });
});

describe('decide: dead-letter reasons', () => {
  const policy = createEnginePolicy();

  it('dead-letters a non-retryable failure on its first attempt', () => {
    expect(policy.decide(atAttempt(1), new NonRetryableError('invalid email'), NOW, MID)).toEqual({
      action: 'dead-letter',
      reason: 'non-retryable',
      errorType: 'PERMANENT',
      error: 'invalid email',
      attempts: 1,
    });
  });

  it('dead-letters a thrown non-Error as handler-bug', () => {
    expect(policy.decide(atAttempt(1), 'oops', NOW, MID)).toMatchObject({ action: 'dead-letter', reason: 'handler-bug' });
  });

  it('dead-letters when the attempts are exhausted, and lets a message override the budget', () => {
    expect(policy.decide(atAttempt(20), failure('TEMPORARY'), NOW, MID)).toMatchObject({ action: 'dead-letter', reason: 'max-attempts', attempts: 20 });
    expect(policy.decide(atAttempt(19), failure('TEMPORARY'), NOW, MID).action).toBe('retry');
    expect(policy.decide(atAttempt(3), failure('TEMPORARY'), NOW, MID, { maxAttempts: 3 })).toMatchObject({ reason: 'max-attempts' });
  });

  it('dead-letters past the deadline, and when the next retry could only start after it', () => {
    const bounded = createEnginePolicy({ jitter: 'none', deadlineSeconds: 100 });
    const firstReceivedAt = NOW - 100_000;
    expect(bounded.decide(atAttempt(2, firstReceivedAt), failure('TEMPORARY'), NOW, MID)).toMatchObject({ reason: 'deadline-exceeded' });
    // 95 s in, the next TEMPORARY delay at attempt 2 is 6 s: it would start at 101 s.
    expect(bounded.decide(atAttempt(2, NOW - 95_000), failure('TEMPORARY'), NOW, MID)).toMatchObject({ reason: 'deadline-exceeded' });
    expect(bounded.decide(atAttempt(2, NOW - 90_000), failure('TEMPORARY'), NOW, MID)).toMatchObject({ action: 'retry', delaySeconds: 6 });
  });
});

describe('decide: long delays hop', () => {
  const policy = createEnginePolicy({
    jitter: 'none',
    hopCeilingSeconds: 5,
    types: { SLOW: { backoff: { type: 'fixed', delayMs: 12_000 }, maxDelayMs: 12_000 } },
  });

  it('sends the first hop at the ceiling and carries the rest as notBefore', () => {
    const decision = policy.decide(atAttempt(1), failure('SLOW'), NOW, MID);
    expect(decision).toMatchObject({ action: 'hop', delaySeconds: 5, state: { attempt: 2, notBefore: NOW + 12_000 } });
  });

  it('re-delays an early arrival without counting an attempt, and runs it once it is due', () => {
    const hop = policy.decide(atAttempt(1), failure('SLOW'), NOW, MID);
    if (hop.action !== 'hop') throw new Error('expected hop');
    const early = policy.deferUntilNotBefore(hop.state, NOW + 5_000, MID);
    expect(early).toMatchObject({ action: 'hop', state: { attempt: 2 } });
    expect(early?.delaySeconds).toBeGreaterThanOrEqual(5);
    expect(policy.deferUntilNotBefore(hop.state, NOW + 11_500, MID)).toBeUndefined();
    expect(policy.deferUntilNotBefore(atAttempt(1), NOW, MID)).toBeUndefined();
  });

  it('uses 900 s hops by default for waits longer than SQS allows', () => {
    const longWait = createEnginePolicy({ jitter: 'none', types: { DAILY: { backoff: { type: 'fixed', delayMs: 3_600_000 }, maxDelayMs: 3_600_000 } } });
    expect(longWait.decide(atAttempt(1), failure('DAILY'), NOW, MID)).toMatchObject({
      action: 'hop',
      delaySeconds: 900,
      state: { notBefore: NOW + 3_600_000 },
    });
  });
});

describe('decide: configuration errors', () => {
  it.each([
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ types: { RATE_LIMIT: { maxDelayMs: -1 } } }, 'types.RATE_LIMIT.maxDelayMs'],
    [{ jitter: 'sideways' }, 'jitter'],
    [{ hopCeilingSeconds: 901 }, 'hopCeilingSeconds'],
    [{ types: { NEW_TYPE: { maxDelayMs: 1000 } } }, 'types.NEW_TYPE.backoff'],
  ])('rejects %j naming %s', (input, path) => {
    expect(() => createEnginePolicy(input as never)).toThrow(RetryPolicyConfigError);
    try {
      createEnginePolicy(input as never);
    } catch (error) {
      expect((error as RetryPolicyConfigError).path).toBe(path);
    }
  });
});

// ---- properties -------------------------------------------------------------

const jitterArb: fc.Arbitrary<JitterInput> = fc.oneof(
  fc.constantFrom<JitterInput>('none', 'full', 'equal', 'decorrelated'),
  fc.double({ min: 0, max: 1, noNaN: true }).map((fraction) => ({ type: 'proportional' as const, fraction })),
  fc.integer({ min: 0, max: 5000 }).map((ms) => ({ type: 'symmetric' as const, ms })),
);
const backoffArb = fc.oneof(
  fc.integer({ min: 0, max: 900_000 }).map((delayMs) => ({ type: 'fixed' as const, delayMs })),
  fc.integer({ min: 0, max: 100_000 }).map((baseMs) => ({ type: 'linear' as const, baseMs })),
  fc
    .record({ baseMs: fc.integer({ min: 0, max: 100_000 }), multiplier: fc.double({ min: 1, max: 5, noNaN: true }) })
    .map((b) => ({ type: 'exponential' as const, ...b })),
);
// Maxima up to 895 s: with 5 s of symmetric jitter the delay still fits one SQS delay.
const typePolicyArb = fc.record({ backoff: backoffArb, maxDelayMs: fc.integer({ min: 0, max: 895_000 }), jitter: jitterArb });

function symmetricSlackMs(jitter: JitterInput): number {
  return typeof jitter === 'object' && jitter.type === 'symmetric' ? jitter.ms : 0;
}

describe('decide: properties', () => {
  it('always yields an integer delay in [0, 900], within the type maximum (plus symmetric jitter)', () => {
    fc.assert(
      fc.property(typePolicyArb, fc.integer({ min: 1, max: 60 }), fc.integer(), (typePolicy, attempt, seed) => {
        const policy = createEnginePolicy({ maxAttempts: 1000, deadlineSeconds: null, types: { T: typePolicy } });
        const decision = policy.decide(atAttempt(attempt), failure('T'), NOW, seededRandom(seed));
        expect(decision.action).toBe('retry');
        const delay = delayOf(decision);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(900);
        // +1: randomized rounding may round a fractional maximum up by under a second.
        expect(delay).toBeLessThanOrEqual(Math.ceil((typePolicy.maxDelayMs + symmetricSlackMs(typePolicy.jitter)) / 1000) + 1);
      }),
      { numRuns: 500 },
    );
  });

  it('never lets the expected delay decrease with the attempt, until the cap', () => {
    fc.assert(
      fc.property(typePolicyArb, fc.integer(), (typePolicy, seed) => {
        const policy = createEnginePolicy({ maxAttempts: 1000, deadlineSeconds: null, types: { T: typePolicy } });
        // Every attempt sees the same random stream and the same messages (common random
        // numbers), so the comparison measures the policy, not sampling noise.
        const meanAt = (attempt: number) => {
          const rng = seededRandom(seed);
          let total = 0;
          for (let i = 0; i < 2000; i++) {
            const state = { ...freshRetryState(`msg-${i}`, NOW), attempt };
            total += delayOf(policy.decide(state, failure('T'), NOW, rng));
          }
          return total / 2000;
        };
        let previous = meanAt(1);
        for (let attempt = 2; attempt <= 6; attempt++) {
          const mean = meanAt(attempt);
          // Decorrelated delays replay per-message draws, so they keep a little noise.
          const toleranceSeconds = (0.02 * (typePolicy.maxDelayMs + 2 * symmetricSlackMs(typePolicy.jitter))) / 1000;
          expect(mean).toBeGreaterThanOrEqual(previous - toleranceSeconds);
          previous = mean;
        }
      }),
      { numRuns: 40, seed: 20261122 },
    );
  });

  it('never schedules a retry or a hop that would start after the deadline', () => {
    fc.assert(
      fc.property(
        typePolicyArb,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 7200 }),
        fc.integer({ min: 0, max: 7200_000 }),
        fc.integer(),
        (typePolicy, attempt, deadlineSeconds, elapsedMs, seed) => {
          const policy = createEnginePolicy({ maxAttempts: 1000, deadlineSeconds, hopCeilingSeconds: 60, types: { T: typePolicy } });
          const state = atAttempt(attempt, NOW - elapsedMs);
          const deadlineAt = state.firstReceivedAt + deadlineSeconds * 1000;
          const decision = policy.decide(state, failure('T'), NOW, seededRandom(seed));
          if (decision.action === 'retry') expect(NOW + decision.delaySeconds * 1000).toBeLessThanOrEqual(deadlineAt);
          if (decision.action === 'hop') expect(decision.state.notBefore).toBeLessThanOrEqual(deadlineAt);
          if (elapsedMs >= deadlineSeconds * 1000) expect(decision).toMatchObject({ action: 'dead-letter', reason: 'deadline-exceeded' });
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('defer: systemic failures keep the attempt budget', () => {
  const policy = createEnginePolicy({ deadlineSeconds: 3600 });
  const rateLimited = { retryable: true as const, errorType: 'RATE_LIMIT', message: 'webhook answered 429', scope: 'systemic' as const };

  it('keeps the attempt and the first receive, records the error, and rounds the wait up', () => {
    const decision = policy.defer(atAttempt(3), rateLimited, 1200, NOW);
    expect(decision).toMatchObject({ action: 'hop', delaySeconds: 2, errorType: 'RATE_LIMIT' });
    expect(decision.action === 'hop' && decision.state).toMatchObject({
      attempt: 3,
      firstReceivedAt: NOW,
      lastErrorType: 'RATE_LIMIT',
      lastError: 'webhook answered 429',
    });
  });

  it('hops past the longest SQS delay with notBefore', () => {
    const decision = policy.defer(atAttempt(1), rateLimited, 3_000_000, NOW);
    expect(decision).toMatchObject({ action: 'hop', delaySeconds: 900, state: { attempt: 1, notBefore: NOW + 3_000_000 } });
  });

  it('dead-letters when the wait would end past the deadline', () => {
    const started = NOW - 3598 * 1000;
    expect(policy.defer(atAttempt(2, started), rateLimited, 5_000, NOW)).toMatchObject({ action: 'dead-letter', reason: 'deadline-exceeded', attempts: 2 });
    // An override may extend the deadline only as far as the operator's ceiling allows.
    const roomier = createEnginePolicy({ deadlineSeconds: 3600, overrideCeilings: { deadlineSeconds: 7200 } });
    expect(roomier.defer(atAttempt(2, started), rateLimited, 5_000, NOW, { deadlineSeconds: 7200 })).toMatchObject({ action: 'hop' });
  });
});
