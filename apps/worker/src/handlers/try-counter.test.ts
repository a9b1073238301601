import { describe, expect, it } from 'vitest';
import { TryCounter } from './try-counter.js';

describe('TryCounter', () => {
  it('counts calls per idempotency key, never below the attempt', () => {
    const tries = new TryCounter();
    expect(tries.next({ attempt: 1, idempotencyKey: 'a' })).toBe(1);
    expect(tries.next({ attempt: 1, idempotencyKey: 'a' })).toBe(2); // deferred: same attempt, next try
    expect(tries.next({ attempt: 1, idempotencyKey: 'b' })).toBe(1);
    // After a restart the process has seen nothing, but the attempt survives in x-retry.
    expect(new TryCounter().next({ attempt: 4, idempotencyKey: 'a' })).toBe(4);
  });
});
