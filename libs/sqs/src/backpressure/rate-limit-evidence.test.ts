import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Admission, DependencyTicket } from './admission.js';
import { Dependency } from './dependency.js';
import { resolveBackpressure } from './options.js';
import { RateLimitEvidence } from './rate-limit-evidence.js';

const START = 1_000_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

const ticketOf = (admission: Admission): DependencyTicket => {
  if (admission.kind !== 'run') throw new Error(`expected run, got ${admission.kind}`);
  return admission.ticket;
};

describe('RateLimitEvidence', () => {
  it('is convinced by three messages meeting their first 429 within 5 s, not by fewer, older ones or a message rejected again', () => {
    const evidence = new RateLimitEvidence(3);
    expect(evidence.record(START, true)).toBe(false);
    expect(evidence.record(START + 1000, false)).toBe(false);
    expect(evidence.record(START + 2000, true)).toBe(false);
    expect(evidence.record(START + 6000, true)).toBe(false);
    expect(evidence.record(START + 6500, true)).toBe(true);
  });

  it('is not convinced while the rejected are under a quarter of the calls: a few messages limited on their own paths', () => {
    const evidence = new RateLimitEvidence(3);
    for (let i = 0; i < 20; i++) evidence.succeeded(START + i);
    // 5 first 429s beside 20 successes: a fifth of the calls.
    for (let i = 0; i < 5; i++) expect(evidence.record(START + 100 + i, true)).toBe(false);
    // Two more make 7 of 27, over a quarter: the dependency limits everyone.
    expect(evidence.record(START + 200, true)).toBe(false);
    expect(evidence.record(START + 201, true)).toBe(true);
    // Five seconds on, the old successes no longer dilute: three fresh first 429s convince.
    for (let i = 0; i < 2; i++) evidence.record(START + 6000 + i, true);
    expect(evidence.record(START + 6002, true)).toBe(true);
  });
});

describe('a dependency and one message’s 429', () => {
  it('neither pauses nor paces on a lone 429: the other messages keep running', async () => {
    const gate = new Dependency(
      'shared.example.com',
      resolveBackpressure({}),
      10,
      () => Date.now(),
      () => 1,
    );
    for (let i = 0; i < 20; i++) gate.finish(ticketOf(await gate.admit()), { kind: 'success' });
    gate.finish(ticketOf(await gate.admit()), { kind: 'rate-limited', retryAfterMs: 5000 });
    expect(gate.blockedUntil()).toBeUndefined();
    expect(gate.pushingBack).toBe(false);
    for (let i = 0; i < 5; i++) expect((await gate.admit()).kind).toBe('run');
  });

  it('pauses once three first attempts are rejected within 5 s', async () => {
    const gate = new Dependency(
      'limited.example.com',
      resolveBackpressure({}),
      10,
      () => Date.now(),
      () => 1,
    );
    for (let i = 0; i < 3; i++) {
      gate.finish(ticketOf(await gate.admit()), { kind: 'rate-limited', retryAfterMs: 2000 });
      vi.advanceTimersByTime(100);
    }
    expect(gate.blockedUntil()).toBeGreaterThan(Date.now());
  });
});

describe('a pace learnt from evidence', () => {
  it('comes from the last seconds of calls, not from everything since start-up', async () => {
    const gate = new Dependency(
      'api.example.com',
      resolveBackpressure({ breaker: false, rateLimitEvidence: 1 }),
      50,
      () => Date.now(),
      () => 1,
    );
    gate.finish(ticketOf(await gate.admit()), { kind: 'success' });
    // Ten quiet minutes, then a burst of 100 calls in a second, then a 429.
    vi.advanceTimersByTime(600_000);
    for (let i = 0; i < 100; i++) {
      gate.finish(ticketOf(await gate.admit()), { kind: 'success' });
      vi.advanceTimersByTime(10);
    }
    gate.finish(ticketOf(await gate.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
    // 100 calls over about 2 s with the pause: some 40 a second, 25 ms apart (from all since start-up: 0.17 a second, 6 s apart).
    vi.setSystemTime(gate.blockedUntil()!);
    expect((await gate.admit()).kind).toBe('run');
    const second = gate.admit();
    let kind: string | undefined;
    void second.then((admission) => (kind = admission.kind));
    await vi.advanceTimersByTimeAsync(100);
    expect(kind).toBe('run');
  });
});
