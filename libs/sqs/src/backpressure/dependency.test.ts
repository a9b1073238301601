import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Dependencies } from './dependencies.js';
import type { Admission, DependencyTicket } from './admission.js';
import { Dependency } from './dependency.js';
import { resolveBackpressure, type BackpressureOptions } from './options.js';

const START = 1_000_000;

function gate(options: BackpressureOptions = {}, maxInFlight = 4) {
  // One 429 is evidence enough here: these tests are about what follows it (rate-limit-evidence.test.ts: how many it takes).
  return new Dependency(
    'api.example.com',
    resolveBackpressure({ rateLimitEvidence: 1, ...options }),
    maxInFlight,
    () => Date.now(),
    () => 1,
  );
}

const ticketOf = (admission: Admission): DependencyTicket => {
  if (admission.kind !== 'run') throw new Error(`expected run, got ${admission.kind}`);
  return admission.ticket;
};

/** Settles a promise's state without waiting for it. */
async function peek<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

describe('Dependency gate', () => {
  it('holds calls beyond its limit in memory, in order, and lets the next through as one finishes', async () => {
    const dependency = gate({ breaker: false }, 2);
    const first = ticketOf(await dependency.admit());
    ticketOf(await dependency.admit());
    const third = dependency.admit();
    expect(await peek(third)).toBe('pending');
    dependency.finish(first, { kind: 'success' });
    expect((await third).kind).toBe('run');
  });

  it('halves its limit on a 503 and lets no more than that run', async () => {
    const dependency = gate({ breaker: false }, 4);
    const tickets = [];
    for (let i = 0; i < 4; i++) tickets.push(ticketOf(await dependency.admit()));
    vi.advanceTimersByTime(10);
    dependency.finish(tickets[0]!, { kind: 'unavailable' });
    expect(dependency.snapshot().concurrencyLimit).toBe(2);
    // Three still run, above the new limit of 2: the next waits until only one does.
    const next = dependency.admit();
    dependency.finish(tickets[1]!, { kind: 'success' });
    expect(await peek(next)).toBe('pending');
    dependency.finish(tickets[2]!, { kind: 'success' });
    expect((await next).kind).toBe('run');
  });

  it('keeps its limit on a 503 the breaker does not confirm, and halves it once the breaker opens', async () => {
    const dependency = gate({ breaker: { minimumRequests: 4 } }, 8);
    const calls = [];
    for (let i = 0; i < 4; i++) calls.push(ticketOf(await dependency.admit()));
    vi.advanceTimersByTime(10);
    dependency.finish(calls[0]!, { kind: 'success' });
    dependency.finish(calls[1]!, { kind: 'unavailable' });
    expect(dependency.snapshot()).toMatchObject({ breaker: 'closed', concurrencyLimit: 8 });
    dependency.finish(calls[2]!, { kind: 'unavailable' });
    dependency.finish(calls[3]!, { kind: 'unavailable' });
    expect(dependency.snapshot()).toMatchObject({ breaker: 'open', concurrencyLimit: 4 });
  });

  it('pauses every call for Retry-After: short pauses wait in memory, long ones defer through SQS', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
    expect(dependency.blockedUntil()).toBe(START + 1000);
    const held = dependency.admit();
    expect(await peek(held)).toBe('pending');
    vi.advanceTimersByTime(999);
    expect(await peek(held)).toBe('pending');
    vi.advanceTimersByTime(1);
    expect((await held).kind).toBe('run');

    dependency.finish(ticketOf(await held), { kind: 'rate-limited', retryAfterMs: 4000 });
    expect(await dependency.admit()).toEqual({ kind: 'defer', untilMs: START + 1000 + 4000, cause: 'rate-limited' });
  });

  it('caps every pause, Retry-After included: a host answering Retry-After: 999999999 pauses its dependency for maxPauseMs', async () => {
    const dependency = gate({ breaker: { maxCooldownMs: 5000 }, holdMs: 0 });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 999_999_999_000 });
    expect(dependency.blockedUntil()).toBe(START + 5000);
    vi.setSystemTime(START + 5000);
    expect((await dependency.admit()).kind).toBe('run');
  });

  it('doubles the pause while rate limits without Retry-After continue, and resets on a success', async () => {
    const dependency = gate({ breaker: false, rateLimitPauseMs: 1000, holdMs: 0 });
    const pauses = [];
    for (let i = 0; i < 3; i++) {
      vi.setSystemTime(Math.max(Date.now(), dependency.blockedUntil() ?? 0));
      dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: undefined });
      pauses.push(dependency.blockedUntil()! - Date.now());
    }
    expect(pauses).toEqual([1000, 2000, 4000]);
    vi.setSystemTime(dependency.blockedUntil()!);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: undefined });
    expect(dependency.blockedUntil()! - Date.now()).toBe(1000);
  });

  it('defers waiting messages once the breaker opens, and defers new ones until the probe', async () => {
    const dependency = gate({ breaker: { minimumRequests: 1, cooldownMs: 4000 } }, 2);
    const a = ticketOf(await dependency.admit());
    const b = ticketOf(await dependency.admit());
    const waiting = dependency.admit();
    dependency.finish(a, { kind: 'unavailable' });
    dependency.finish(b, { kind: 'unavailable' }); // started before the opening: stale
    expect(await waiting).toEqual({ kind: 'defer', untilMs: START + 4000, cause: 'breaker-open' });
    expect(await dependency.admit()).toEqual({ kind: 'defer', untilMs: START + 4000, cause: 'breaker-open' });
    expect(dependency.snapshot()).toMatchObject({ breaker: 'open', blockedUntil: START + 4000 });

    vi.setSystemTime(START + 4000);
    const probe = ticketOf(await dependency.admit());
    const afterProbe = dependency.admit();
    expect(await peek(afterProbe)).toBe('pending');
    dependency.finish(probe, { kind: 'success' });
    expect((await afterProbe).kind).toBe('run');
    expect(dependency.snapshot().breaker).toBe('closed');
  });

  it('samples only first attempts into the breaker: a tail of failing retries is not an outage', async () => {
    const dependency = gate({ breaker: { minimumRequests: 5 } }, 50);
    for (let i = 0; i < 20; i++) dependency.finish(ticketOf(await dependency.admit(false)), { kind: 'unavailable' });
    expect(dependency.snapshot().breaker).toBe('closed');
    for (let i = 0; i < 5; i++) dependency.finish(ticketOf(await dependency.admit(true)), { kind: 'unavailable' });
    expect(dependency.snapshot().breaker).toBe('open');
  });

  it('paces dispatches at the rate the dependency admitted once it rate-limits', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 }, 50);
    // 100 calls admitted in 100 ms, then a 429 asking for a 1 s pause: about 91 calls/s.
    for (let i = 0; i < 100; i++) {
      dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
      vi.advanceTimersByTime(1);
    }
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
    vi.advanceTimersByTime(1000);
    const startedAt: number[] = [];
    const calls = Array.from({ length: 5 }, () =>
      Promise.resolve(dependency.admit()).then((admission) => {
        startedAt.push(Date.now());
        dependency.finish(ticketOf(admission), { kind: 'success' });
      }),
    );
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(calls);
    const gaps = startedAt.slice(1).map((at, i) => at - startedAt[i]!);
    // (100 ms + 1000 ms) / 100 successes, 5% slower: 11.55 ms apart.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(11);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(13);
  });

  it('releases every waiting message at stop', async () => {
    const dependency = gate({ breaker: false }, 1);
    ticketOf(await dependency.admit());
    const waiting = dependency.admit();
    dependency.stop();
    expect(await waiting).toEqual({ kind: 'stopped' });
  });
});

/** The next call's ticket, the clock moved on until the gate lets it run. */
async function admitted(dependency: Dependency): Promise<DependencyTicket> {
  const admission = dependency.admit();
  while ((await peek(admission)) === 'pending') await vi.advanceTimersByTimeAsync(1);
  return ticketOf(await admission);
}

/** 100 calls admitted over 100 ms, then a 429 with Retry-After: 1 s: paced 11.55 ms apart, and paused until START + 1100. */
async function learnPace(dependency: Dependency): Promise<void> {
  for (let i = 0; i < 100; i++) {
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    vi.advanceTimersByTime(1);
  }
  dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
  vi.setSystemTime(dependency.blockedUntil()!);
}

describe('Dependency gate, once paced (as one worker of a fleet)', () => {
  it('re-measures the pace on a 429 that follows admitted calls, without pausing every call', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 }, 50);
    await learnPace(dependency);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    vi.advanceTimersByTime(50);
    const rejected = { kind: 'rate-limited', retryAfterMs: 1000 } as const;
    dependency.finish(ticketOf(await dependency.admit()), rejected);
    expect(dependency.blockedUntil()).toBeUndefined();
    // The dependency still admits: the 429 is its own, so the message waits without an attempt.
    expect(dependency.confirmedUntil(rejected)).toBe(Date.now());
    expect(dependency.confirmedUntil({ kind: 'unavailable' })).toBeUndefined();
  });

  it('pauses every call on a 429 when nothing got through since the last one', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 }, 50);
    await learnPace(dependency);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
    expect(dependency.blockedUntil()).toBe(Date.now() + 1000);
  });

  it('counts a burst of 429s once: a call that started before the last 429 neither pauses nor re-measures', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 }, 50);
    await learnPace(dependency);
    const [a, b, c] = [await admitted(dependency), await admitted(dependency), await admitted(dependency)];
    vi.advanceTimersByTime(1);
    dependency.finish(a, { kind: 'success' });
    dependency.finish(b, { kind: 'rate-limited', retryAfterMs: 1000 });
    // c got nothing through since b's 429, but it was already under way: same burst.
    dependency.finish(c, { kind: 'rate-limited', retryAfterMs: 1000 });
    expect(dependency.blockedUntil()).toBeUndefined();
  });

  it('does not count a success that started before the last 429 as the dependency still admitting', async () => {
    const dependency = gate({ breaker: false, holdMs: 2000 }, 50);
    await learnPace(dependency);
    const [straggler, rejected] = [await admitted(dependency), await admitted(dependency)];
    vi.advanceTimersByTime(1);
    dependency.finish(rejected, { kind: 'rate-limited', retryAfterMs: 1000 });
    dependency.finish(straggler, { kind: 'success' });
    vi.setSystemTime(dependency.blockedUntil()!);
    dependency.finish(await admitted(dependency), { kind: 'rate-limited', retryAfterMs: 1000 });
    expect(dependency.blockedUntil()).toBe(Date.now() + 1000);
  });

  it('hands a message back to SQS when it would wait at the pace longer than holdMs, and stops receiving meanwhile', async () => {
    const dependency = gate({ breaker: false, holdMs: 100 }, 50);
    await learnPace(dependency);
    ticketOf(await dependency.admit());
    // 11.55 ms apart: 8 wait within 100 ms; the 9th would wait 104 ms.
    const queued = Array.from({ length: 8 }, () => dependency.admit());
    expect(await peek(queued[7]!)).toBe('pending');
    expect(dependency.busyUntil()).toBeCloseTo(Date.now() + 4.0, 0);
    expect(await dependency.admit()).toEqual({ kind: 'defer', untilMs: expect.closeTo(Date.now() + 4.0, 0), cause: 'rate-limited' });
    expect(dependency.blockedUntil()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    for (const admission of queued) expect((await admission).kind).toBe('run');
    expect(dependency.busyUntil()).toBeUndefined();
  });

  it('speeds the pace up 1% a second of successes, however few, then 5% a second once nothing was rejected for 10 s', async () => {
    const dependency = gate({ breaker: false, holdMs: 60_000 }, 50);
    await learnPace(dependency);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(1000);
      dependency.finish(await admitted(dependency), { kind: 'success' });
    }
    // 4 s since the 429: 0.99^4 of 11.55 ms, 11.10 ms apart.
    await admitted(dependency);
    const next = dependency.admit();
    await vi.advanceTimersByTimeAsync(11);
    expect(await peek(next)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect((await next).kind).toBe('run');
    for (let i = 0; i < 26; i++) {
      vi.advanceTimersByTime(1000);
      dependency.finish(await admitted(dependency), { kind: 'success' });
    }
    // 30 s since it, 20 of them quiet: about 0.99^10 x 0.95^20 of 11.55 ms, still paced.
    expect(dependency.pushingBack).toBe(true);
    for (let i = 0; i < 30; i++) {
      vi.advanceTimersByTime(1000);
      dependency.finish(await admitted(dependency), { kind: 'success' });
    }
    // A minute since it: under a millisecond apart, the pace has lifted.
    expect(dependency.pushingBack).toBe(false);
    for (let i = 0; i < 5; i++) expect((await dependency.admit()).kind).toBe('run');
  });
});

describe('Dependencies', () => {
  it('blocks receiving only while every known dependency is blocked', async () => {
    const dependencies = new Dependencies(
      resolveBackpressure({ breaker: false, rateLimitEvidence: 1 }),
      10,
      () => Date.now(),
      () => 1,
    );
    const a = dependencies.get('a.example.com');
    const b = dependencies.get('b.example.com');
    a.finish(ticketOf(await a.admit()), { kind: 'rate-limited', retryAfterMs: 5000 });
    expect(dependencies.receiveBlockedUntil()).toBeUndefined();
    b.finish(ticketOf(await b.admit()), { kind: 'rate-limited', retryAfterMs: 3000 });
    expect(dependencies.receiveBlockedUntil()).toBe(START + 3000);
    vi.setSystemTime(START + 3000);
    expect(dependencies.receiveBlockedUntil()).toBeUndefined();
  });
});
