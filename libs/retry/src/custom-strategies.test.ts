import { describe, expect, it } from 'vitest';
import { createEnginePolicy } from './decide.js';
import type { Decision } from './decision.js';
import { InvalidRetryStateError, RetryableError, RetryPolicyConfigError } from './errors.js';
import { freshRetryState } from './retry-state.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const state = { ...freshRetryState('m', NOW), attempt: 1 };
const failure = new RetryableError('upstream 503', { errorType: 'TEMPORARY' });

function delayOf(decision: Decision): number {
  if (decision.action === 'dead-letter') throw new Error(`expected a retry, got ${decision.reason}`);
  return decision.delaySeconds;
}

/** Every random draw from 0 to 1: a jittered delay would move across them. */
const draws = [0, 0.25, 0.5, 0.75, 0.999].map((u) => () => u);

describe('custom strategies', () => {
  it("use the strategy's delay exactly under the shipped jitter (BullMQ's custom strategies are exact)", () => {
    const policy = createEnginePolicy({ types: { TEMPORARY: { backoff: { type: 'custom', compute: () => 9000 } } } });
    expect(draws.map((rng) => delayOf(policy.decide(state, failure, NOW, rng)))).toEqual([9, 9, 9, 9, 9]);
  });

  it('are jittered when the type itself sets a jitter', () => {
    const policy = createEnginePolicy({ types: { TEMPORARY: { backoff: { type: 'custom', compute: () => 9000 }, jitter: 'full' } } });
    expect(new Set(draws.map((rng) => delayOf(policy.decide(state, failure, NOW, rng)))).size).toBeGreaterThan(1);
  });

  it('are registered by name, for RETRY_POLICY JSON and for one message in x-retry-policy', () => {
    const strategies = { payments: (attempt: number) => attempt * 7000 };
    const policy = createEnginePolicy({ strategies, types: { DEFAULT: { backoff: { type: 'custom', name: 'payments' } } } });
    expect(delayOf(policy.decide(state, new RetryableError('x'), NOW, () => 0.5))).toBe(7);

    const shipped = createEnginePolicy({ strategies });
    const override = shipped.parseOverride('{"backoff":{"type":"custom","name":"payments"}}');
    expect(draws.map((rng) => delayOf(shipped.decide({ ...state, attempt: 2 }, failure, NOW, rng, override)))).toEqual([14, 14, 14, 14, 14]);
  });

  it('refuse a name nobody registered: a config error for RETRY_POLICY, an ignored override for a message', () => {
    expect(() => createEnginePolicy({ types: { DEFAULT: { backoff: { type: 'custom', name: 'nope' } } } })).toThrow(RetryPolicyConfigError);
    expect(() => createEnginePolicy({ types: { DEFAULT: { backoff: { type: 'custom', name: 'nope' } } } })).toThrow(/types\.DEFAULT\.backoff\.name/);
    expect(() => createEnginePolicy().parseOverride('{"backoff":{"type":"custom","name":"nope"}}')).toThrow(InvalidRetryStateError);
  });
});
