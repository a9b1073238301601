import { createRetryPolicy } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import { requeuePolicy, seedReferencePolicy, simulateHerd, type HerdScenario } from './model.js';
import { seedReferenceDelaySeconds } from './seed-reference-policy.js';

const small: HerdScenario = { messages: 500, outageSeconds: 20, capacityPerSecond: 20, horizonSeconds: 20_000 };

describe('seed reference policy', () => {
  it('keeps the seed defects: the global 60 s cap overrides the rate-limit maximum, and Math.ceil', () => {
    expect(seedReferenceDelaySeconds('rate limit exceeded', 0, () => 0)).toBe(60);
    expect(seedReferenceDelaySeconds('temporary failure', 0, () => 0.5)).toBe(3);
    expect(seedReferenceDelaySeconds('temporary failure', 10, () => 0.99)).toBe(60);
    expect(seedReferenceDelaySeconds('temporary failure', 50, () => 0)).toBeUndefined();
  });
});

describe('herd model', () => {
  it.each([
    ['requeue default', () => requeuePolicy('default', createRetryPolicy())],
    ['seed reference', () => seedReferencePolicy()],
  ])('accounts for every message under %s', (_label, makePolicy) => {
    const result = simulateHerd(makePolicy(), small, seededRandom(1));
    expect(result.successes + result.deadLettered + result.undrained).toBe(small.messages);
    expect(result.downstreamCalls).toBeGreaterThanOrEqual(small.messages);
    expect(result.callsPerSecond.slice(0, small.outageSeconds).every((calls) => calls <= small.messages)).toBe(true);
  });

  it('never lets more than capacity succeed in one second', () => {
    const result = simulateHerd(requeuePolicy('default', createRetryPolicy()), small, seededRandom(2));
    const successesPossible = Math.max(0, result.drainSeconds - small.outageSeconds) * small.capacityPerSecond;
    expect(result.successes).toBeLessThanOrEqual(successesPossible);
  });

  it('lets hops through the model without counting them as calls', () => {
    const hopping = createRetryPolicy({
      hopCeilingSeconds: 5,
      jitter: 'none',
      types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 12_000 }, maxDelayMs: 12_000 } },
    });
    const result = simulateHerd(requeuePolicy('hops', hopping), { messages: 1, outageSeconds: 1, capacityPerSecond: 1, horizonSeconds: 100 }, seededRandom(3));
    expect(result.downstreamCalls).toBe(2);
    expect(result.drainSeconds).toBeGreaterThanOrEqual(12);
  });
});
