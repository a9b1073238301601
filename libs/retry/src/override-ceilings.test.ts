import { describe, expect, it } from 'vitest';
import { createEnginePolicy } from './decide.js';
import type { Decision } from './decision.js';
import { RetryableError } from './errors.js';
import { freshRetryState } from './retry-state.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const atAttempt = (attempt: number, firstReceivedAt = NOW) => ({ ...freshRetryState('m', firstReceivedAt), attempt });
const failing = new RetryableError('upstream 503', { errorType: 'TEMPORARY' });
const delayOf = (decision: Decision) => (decision.action === 'dead-letter' ? -1 : decision.delaySeconds);

describe('x-retry-policy within the operator’s ceilings', () => {
  // The probe's override: a thousand attempts, no delay, no jitter.
  const hammer = createEnginePolicy().parseOverride('{"maxAttempts":1000,"backoff":{"type":"fixed","delayMs":0,"jitter":"none"}}');
  const policy = createEnginePolicy();

  it('cannot raise the attempts past the policy’s own budget (20 by default)', () => {
    expect(policy.decide(atAttempt(19), failing, NOW, () => 0.5, hammer).action).toBe('retry');
    expect(policy.decide(atAttempt(20), failing, NOW, () => 0.5, hammer)).toMatchObject({ action: 'dead-letter', reason: 'max-attempts' });
  });

  it('cannot retry sooner than 1 s, whatever its backoff says', () => {
    expect(delayOf(policy.decide(atAttempt(1), failing, NOW, () => 0, hammer))).toBe(1);
  });

  it('may lower the budget and the deadline', () => {
    const careful = policy.parseOverride('{"maxAttempts":2,"deadlineSeconds":60}');
    expect(policy.decide(atAttempt(2), failing, NOW, () => 0.5, careful)).toMatchObject({ action: 'dead-letter', reason: 'max-attempts' });
    expect(policy.decide(atAttempt(1, NOW - 61_000), failing, NOW, () => 0.5, careful)).toMatchObject({ action: 'dead-letter', reason: 'deadline-exceeded' });
  });

  it('cannot raise the deadline past the policy’s own', () => {
    const long = policy.parseOverride('{"deadlineSeconds":1209600}');
    const twoDaysIn = NOW - 2 * 24 * 3600 * 1000;
    expect(policy.decide(atAttempt(1, twoDaysIn), failing, NOW, () => 0.5, long)).toMatchObject({ action: 'dead-letter', reason: 'deadline-exceeded' });
  });

  it('ceilings are configurable: an operator can let publishers ask for more', () => {
    const generous = createEnginePolicy({ overrideCeilings: { maxAttempts: 50, minDelayMs: 0 } });
    const override = generous.parseOverride('{"maxAttempts":1000,"backoff":{"type":"fixed","delayMs":0,"jitter":"none"}}');
    expect(generous.decide(atAttempt(49), failing, NOW, () => 0.5, override).action).toBe('retry');
    expect(generous.decide(atAttempt(50), failing, NOW, () => 0.5, override)).toMatchObject({ reason: 'max-attempts' });
    expect(delayOf(generous.decide(atAttempt(1), failing, NOW, () => 0, override))).toBe(0);
  });
});
