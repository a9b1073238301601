import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerTicket, type CircuitBreakerOptions } from './circuit-breaker.js';

const OPTIONS: CircuitBreakerOptions = { failureRate: 0.5, minimumRequests: 20, windowMs: 10_000, cooldownMs: 1000, maxCooldownMs: 8000, probes: 1 };

function harness(options: Partial<CircuitBreakerOptions> = {}, random = () => 1) {
  const clock = { now: 1_000_000 };
  const transitions: string[] = [];
  const breaker = new CircuitBreaker(
    { ...OPTIONS, ...options },
    () => clock.now,
    random,
    (state) => transitions.push(state),
  );
  const call = (result: 'success' | 'failure' | 'neutral') => {
    const admission = breaker.admit();
    if (admission.kind !== 'run') throw new Error(`not admitted: ${admission.kind}`);
    breaker.record(admission.ticket, result);
  };
  return { clock, breaker, transitions, call };
}

describe('CircuitBreaker', () => {
  it('opens when half the calls in the window fail, once the window holds the minimum volume', () => {
    const { breaker, call, transitions } = harness();
    for (let i = 0; i < 9; i++) call('failure');
    for (let i = 0; i < 10; i++) call('success');
    expect(breaker.state).toBe('closed'); // 19 calls: below the minimum volume
    call('failure'); // 10 of 20 failed
    expect(breaker.state).toBe('open');
    expect(transitions).toEqual(['open']);
  });

  it('forgets failures that slid out of the window', () => {
    const { breaker, call, clock } = harness();
    for (let i = 0; i < 15; i++) call('failure');
    clock.now += 11_000;
    for (let i = 0; i < 15; i++) call('success');
    call('failure');
    expect(breaker.state).toBe('closed'); // 1 of 16 in the window
  });

  it('never counts neutral answers (a 400, a handler bug) toward the volume', () => {
    const { breaker, call } = harness();
    for (let i = 0; i < 100; i++) call('neutral');
    for (let i = 0; i < 19; i++) call('failure');
    expect(breaker.state).toBe('closed');
  });

  it('never opens on a 10% failure mix, whatever the order and the timing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 2000 })), { minLength: 1, maxLength: 200 }), (blocks) => {
        const { breaker, call, clock } = harness();
        for (const [failingIndex, gapMs] of blocks) {
          for (let i = 0; i < 10; i++) {
            call(i === failingIndex ? 'failure' : 'success');
            clock.now += gapMs / 10;
          }
        }
        return breaker.state === 'closed';
      }),
    );
  });

  it('defers everything while open, then lets one probe through, and closes on its success', () => {
    const { breaker, call, clock, transitions } = harness({ minimumRequests: 2 });
    call('failure');
    call('failure');
    const openedAt = clock.now;
    expect(breaker.admit()).toEqual({ kind: 'open', probeAt: openedAt + 1000 });
    clock.now = openedAt + 1000;
    expect(breaker.state).toBe('half-open');
    const probe = breaker.admit();
    expect(probe).toMatchObject({ kind: 'run', ticket: { probe: true } });
    expect(breaker.admit()).toEqual({ kind: 'wait' });
    breaker.record((probe as { ticket: BreakerTicket }).ticket, 'success');
    expect(breaker.state).toBe('closed');
    expect(transitions).toEqual(['open', 'half-open', 'closed']);
  });

  it('reopens on a failed probe with a cool-down that doubles up to the maximum', () => {
    const { breaker, call, clock } = harness({ minimumRequests: 1 });
    call('failure');
    const cooldowns: number[] = [];
    for (let i = 0; i < 6; i++) {
      const opened = breaker.admit();
      if (opened.kind !== 'open') throw new Error('expected open');
      cooldowns.push(opened.probeAt - clock.now);
      clock.now = opened.probeAt;
      const probe = breaker.admit();
      breaker.record((probe as { ticket: BreakerTicket }).ticket, 'failure');
    }
    expect(cooldowns).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('jitters the cool-down between half and all of it', () => {
    const low = harness({ minimumRequests: 1 }, () => 0);
    low.call('failure');
    expect(low.breaker.probeAt - low.clock.now).toBe(500);
  });

  it('treats a rate-limited or neutral probe as proof of life', () => {
    const { breaker, call, clock } = harness({ minimumRequests: 1 });
    call('failure');
    clock.now = breaker.probeAt;
    const probe = breaker.admit() as { ticket: BreakerTicket };
    breaker.record(probe.ticket, 'neutral');
    expect(breaker.state).toBe('closed');
  });

  it('ignores results of calls that started before the last transition', () => {
    const { breaker, call } = harness({ minimumRequests: 2 });
    const early = breaker.admit() as { ticket: BreakerTicket };
    call('failure');
    call('failure');
    expect(breaker.state).toBe('open');
    breaker.record(early.ticket, 'success');
    expect(breaker.state).toBe('open');
  });
});
