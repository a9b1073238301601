import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Dependency, type Admission } from './dependency.js';
import { fleetView, type FleetMemberState, type FleetStateStore } from './fleet-state.js';
import { memberReport } from './fleet-report.fake.js';
import { resolveBackpressure } from './options.js';

const START = 1_000_000_000;
const YEAR = 365 * 86_400_000;
const STALE = 3000;
const MAX_PAUSE = 5000;

const report = (workerId: string, fields: Partial<FleetMemberState> = {}): FleetMemberState => memberReport(workerId, START, fields);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

describe('fleet reports a worker cannot trust', () => {
  it('leaves out a report from further in the future than the stale limit; accepts a clock a little ahead', () => {
    const self = report('me');
    const seen = fleetView(
      [self, report('ahead', { seenAt: START + YEAR, pausedUntil: START + 2 * YEAR }), report('skewed', { seenAt: START + 1000 })],
      self,
      START,
      STALE,
      MAX_PAUSE,
    );
    expect(seen.members).toBe(2);
    expect(seen.pausedUntil).toBe(0);
  });

  it('believes a pause for at most maxPauseMs from its report, whatever it says', () => {
    const self = report('me');
    const seen = fleetView([report('hostile', { seenAt: START - 1000, pausedUntil: START + YEAR })], self, START, STALE, MAX_PAUSE);
    expect(seen.pausedUntil).toBe(START - 1000 + MAX_PAUSE);
  });

  it.each([
    ['dated now', START],
    ['dated a year ahead', START + YEAR],
  ])('a dependency whose store keeps returning one hostile pause (%s) calls again within maxPauseMs', async (_what, seenAt) => {
    const hostile = report('hostile', { seenAt, pausedUntil: START + 2 * YEAR });
    // The hostile report is written once and stays in the store; this worker exchanges every second.
    const store: FleetStateStore = { exchange: async (_dependency, state) => [state, hostile] };
    const gate = new Dependency(
      'api.example.com',
      resolveBackpressure({ holdMs: 60_000, rateLimitEvidence: 1, fleet: { store, workerId: 'me' } }),
      10,
      () => Date.now(),
      () => 1,
    );
    const ran: number[] = [];
    const admissions: Promise<Admission>[] = [];
    // Something pushes back, so the worker shares state: one 429.
    const first = await gate.admit();
    if (first.kind !== 'run') throw new Error('expected the first call to run');
    gate.finish(first.ticket, { kind: 'rate-limited', retryAfterMs: 1000 });
    for (let second = 0; second < 30; second++) {
      gate.applyFleet(fleetView(await store.exchange('api.example.com', gate.memberState('me'), STALE), report('me'), Date.now(), STALE, MAX_PAUSE));
      const admission = Promise.resolve(gate.admit());
      admissions.push(admission);
      void admission.then((a) => {
        if (a.kind === 'run') {
          ran.push(Date.now());
          gate.finish(a.ticket, { kind: 'success' });
        }
      });
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(ran.length).toBeGreaterThan(0);
    expect(Math.min(...ran) - START).toBeLessThanOrEqual(MAX_PAUSE + 1000);
  });
});
