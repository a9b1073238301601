import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Dependencies, type DependencyEvents } from './dependencies.js';
import type { Admission, DependencyTicket } from './admission.js';
import { Dependency } from './dependency.js';
import { fleetView, type FleetMemberState, type FleetStateStore, type FleetView } from './fleet-state.js';
import { memberReport } from './fleet-report.fake.js';
import { resolveBackpressure, type BackpressureOptions } from './options.js';
import { SqsWorkerConfigError } from '../errors.js';

const START = 1_000_000;

const report = (workerId: string, fields: Partial<FleetMemberState> = {}): FleetMemberState => memberReport(workerId, START, fields);

const view = (fields: Partial<FleetView> = {}): FleetView => ({
  readAt: Date.now(),
  members: 1,
  othersPaces: [],
  ratePerSecond: 0,
  pausedUntil: 0,
  recoveredAt: 0,
  ...fields,
});

/** A store that answers as the fleet's other workers would, and records what this one sent. */
class FakeFleetStore implements FleetStateStore {
  readonly sent: FleetMemberState[] = [];
  others: unknown[] = [];
  failWith: Error | undefined;
  hang = false;

  async exchange(_dependency: string, state: FleetMemberState): Promise<readonly unknown[]> {
    this.sent.push(state);
    if (this.hang) return new Promise(() => undefined);
    if (this.failWith) throw this.failWith;
    return [state, ...this.others];
  }
}

function sharedGate(store: FleetStateStore, options: BackpressureOptions = {}, maxInFlight = 10) {
  return new Dependency(
    'api.example.com',
    resolveBackpressure({ holdMs: 60_000, rateLimitEvidence: 1, ...options, fleet: { store, workerId: 'me' } }),
    maxInFlight,
    () => Date.now(),
    () => 1,
  );
}

const ticketOf = (admission: Admission): DependencyTicket => {
  if (admission.kind !== 'run') throw new Error(`expected run, got ${admission.kind}`);
  return admission.ticket;
};

async function peek<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

/** How long after the first of two back-to-back calls the second may start. */
async function spacingMs(dependency: Dependency): Promise<number> {
  const startedAt = Date.now();
  ticketOf(await dependency.admit());
  const second = dependency.admit();
  while ((await peek(second)) === 'pending') await vi.advanceTimersByTimeAsync(1);
  return Date.now() - startedAt;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

describe('fleetView', () => {
  it('averages the estimates of the fleet rate, adds up what the others are paced at, counts every worker (open ones will call again), and takes the longest pause', () => {
    const self = report('me', { pacePerSecond: 4, ratePerSecond: 20 });
    const seen = fleetView(
      [
        self,
        report('a', { pacePerSecond: 10, pacedSince: START - 5000, ratePerSecond: 30, pausedUntil: START + 500 }),
        report('b', { pacePerSecond: 5, pacedSince: START - 4000, ratePerSecond: 10 }),
        report('new', { pacePerSecond: 7, pacedSince: START }),
        report('c', { breaker: 'open', ratePerSecond: 99, pausedUntil: START + 900 }),
      ],
      self,
      START,
      3000,
      5000,
    );
    expect(seen).toEqual({
      readAt: START,
      members: 5,
      ratePerSecond: 20,
      othersPaces: [
        { pacePerSecond: 10, pacedSince: START - 5000 },
        { pacePerSecond: 5, pacedSince: START - 4000 },
        { pacePerSecond: 7, pacedSince: START },
      ],
      pausedUntil: START + 900,
      recoveredAt: 0,
    });
  });

  it('leaves out reports that are stale or malformed: they come from other processes', () => {
    const self = report('me');
    const reports = [
      report('old', { ratePerSecond: 50, seenAt: START - 3001 }),
      { workerId: 'x', ratePerSecond: 'fast' },
      null,
      'text',
      report('nan', { ratePerSecond: Number.NaN }),
      report('neg', { pausedUntil: -1 }),
    ];
    expect(fleetView(reports, self, START, 3000)).toEqual({ readAt: START, members: 1, othersPaces: [], ratePerSecond: 0, pausedUntil: 0, recoveredAt: 0 });
  });

  it('takes a recovery only from a worker whose breaker is not open again', () => {
    const self = report('me', { breaker: 'open' });
    expect(fleetView([report('a', { recoveredAt: START - 10 })], self, START, 3000).recoveredAt).toBe(START - 10);
    expect(fleetView([report('a', { recoveredAt: START - 10, breaker: 'open' })], self, START, 3000).recoveredAt).toBe(0);
  });
});

describe('Dependency gate in a fleet', () => {
  it('starts at its share of the fleet pace instead of bursting', async () => {
    const dependency = sharedGate(new FakeFleetStore());
    expect(await spacingMs(dependency)).toBe(0);
    dependency.applyFleet(view({ members: 4, ratePerSecond: 100 }));
    // 100/s across 4 callers: 25/s, 40 ms apart.
    expect(await spacingMs(dependency)).toBe(40);
  });

  it('holds every call through a pause another worker took after a 429, capped at the longest pause it would take itself', async () => {
    const dependency = sharedGate(new FakeFleetStore());
    dependency.applyFleet(view({ pausedUntil: START + 800 }));
    expect(dependency.blockedUntil()).toBe(START + 800);
    const call = dependency.admit();
    await vi.advanceTimersByTimeAsync(799);
    expect(await peek(call)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect((await call).kind).toBe('run');
    dependency.applyFleet(view({ pausedUntil: Date.now() + 3_600_000 }));
    expect(dependency.blockedUntil()).toBe(Date.now() + 5000);
  });

  it('joins the fleet when its breaker closes: holds its calls until the exchange its closing set off answers', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: { minimumRequests: 1, cooldownMs: 1000, maxCooldownMs: 1000 } });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'unavailable' });
    expect(dependency.snapshot().breaker).toBe('open');
    vi.setSystemTime(dependency.blockedUntil()!);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    expect(dependency.snapshot().breaker).toBe('closed');
    const waiting = dependency.admit();
    await vi.advanceTimersByTimeAsync(100);
    expect(await peek(waiting)).toBe('pending');
    // Another worker recovered meanwhile, was rejected, and paces: this one takes its share.
    dependency.applyFleet(view({ members: 2, ratePerSecond: 50, pausedUntil: Date.now() + 200 }));
    await vi.advanceTimersByTimeAsync(199);
    expect(await peek(waiting)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    ticketOf(await waiting);
    const next = dependency.admit();
    await vi.advanceTimersByTimeAsync(39);
    expect(await peek(next)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect((await next).kind).toBe('run');
  });

  it('goes on alone after a recovery when the store does not answer within its timeout, ignoring a stale view', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: { minimumRequests: 1, cooldownMs: 1000, maxCooldownMs: 1000 } });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'unavailable' });
    dependency.applyFleet(view({ members: 2, ratePerSecond: 50 }));
    vi.setSystemTime(Date.now() + 3001);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    const waiting = dependency.admit();
    await vi.advanceTimersByTimeAsync(499);
    expect(await peek(waiting)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    ticketOf(await waiting);
    expect(await spacingMs(dependency)).toBe(0);
  });

  it("once paced, keeps calling at its share through another worker's pause: paused together, they would resume together", () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: false });
    dependency.applyFleet(view({ members: 2, ratePerSecond: 100 }));
    dependency.applyFleet(view({ members: 2, ratePerSecond: 100, pausedUntil: Date.now() + 1000 }));
    expect(dependency.blockedUntil()).toBeUndefined();
  });

  it('probes though another worker reports a pause: a report never keeps the probe from running', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: { minimumRequests: 1, cooldownMs: 5000, maxCooldownMs: 5000 } });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'unavailable' });
    vi.advanceTimersByTime(100);
    dependency.applyFleet(view({ recoveredAt: Date.now(), pausedUntil: Date.now() + 5000 }));
    expect(ticketOf(await dependency.admit()).breaker?.probe).toBe(true);
  });

  it('probes at once when another worker saw the dependency recover after this breaker opened', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: { minimumRequests: 1, cooldownMs: 5000, maxCooldownMs: 5000 } });
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'unavailable' });
    vi.advanceTimersByTime(100);
    dependency.applyFleet(view({ recoveredAt: START - 1 }));
    expect((await dependency.admit()).kind).toBe('defer');
    dependency.applyFleet(view({ recoveredAt: Date.now() }));
    expect(ticketOf(await dependency.admit()).breaker?.probe).toBe(true);
  });
});

describe("a fleet member's estimate of the fleet rate", () => {
  /** 100 calls admitted over 100 ms, then a 429 with Retry-After: 1 s: paced at 1000 / 11.55 = 86.6 calls/s. */
  async function measurePace(dependency: Dependency): Promise<void> {
    for (let i = 0; i < 100; i++) {
      dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
      vi.advanceTimersByTime(1);
    }
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
  }

  it('is unknown right after its own measurement, then its pace plus what the others send, once their reports after it are read', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: false });
    await measurePace(dependency);
    const measured = dependency.memberState('me');
    expect(measured.pacePerSecond).toBeCloseTo(86.6, 1);
    expect(measured.ratePerSecond).toBe(0);
    // Read in the same burst: the others rejected with it may not have reported yet.
    // Paced before it, in the same burst, and after it (a joiner: its share is not the dependency's to give twice).
    const others = [
      { pacePerSecond: 30, pacedSince: START - 5000 },
      { pacePerSecond: 10, pacedSince: Date.now() + 150 },
      { pacePerSecond: 20, pacedSince: Date.now() + 400 },
    ];
    dependency.applyFleet(view({ members: 4, othersPaces: others }));
    expect(dependency.memberState('me').ratePerSecond).toBe(0);
    vi.advanceTimersByTime(500);
    dependency.applyFleet(view({ members: 4, othersPaces: others }));
    // No other estimate: it paces at its share of its own.
    expect(dependency.memberState('me').ratePerSecond).toBeCloseTo(126.6, 1);
    expect(dependency.memberState('me').pacePerSecond).toBeCloseTo(126.6 / 4, 1);
  });

  it('takes its share of what the others are paced at when none of them knows the fleet rate yet', () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: false });
    dependency.applyFleet(view({ members: 3, othersPaces: [{ pacePerSecond: 90, pacedSince: START }] }));
    expect(dependency.memberState('me').pacePerSecond).toBeCloseTo(30, 6);
    expect(dependency.memberState('me').ratePerSecond).toBeCloseTo(90, 6);
  });

  it('is the rate it adopted, once it paces at its share of it, and grows with its pace', async () => {
    const dependency = sharedGate(new FakeFleetStore(), { breaker: false });
    dependency.applyFleet(view({ members: 4, ratePerSecond: 100 }));
    expect(dependency.memberState('me').pacePerSecond).toBeCloseTo(25, 6);
    expect(dependency.memberState('me').ratePerSecond).toBeCloseTo(100, 6);
    vi.advanceTimersByTime(1000);
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
    expect(dependency.memberState('me').ratePerSecond).toBeCloseTo(101, 0);
  });
});

describe('Dependencies sharing state with the fleet', () => {
  function fleetOf(store: FleetStateStore, events: DependencyEvents = {}) {
    return new Dependencies(
      resolveBackpressure({ breaker: false, holdMs: 60_000, rateLimitEvidence: 1, fleet: { store, workerId: 'me', syncIntervalMs: 1000, timeoutMs: 200 } }),
      10,
      () => Date.now(),
      () => 1,
      events,
    );
  }

  it('makes no store call while no dependency pushes back', async () => {
    const store = new FakeFleetStore();
    const dependency = fleetOf(store).get('api.example.com');
    for (let i = 0; i < 5; i++) {
      dependency.finish(ticketOf(await dependency.admit()), { kind: 'success' });
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(store.sent).toEqual([]);
  });

  it('reports a 429 at once, then once a second while the dependency pushes back, and applies the fleet view', async () => {
    const store = new FakeFleetStore();
    store.others = [report('other', { ratePerSecond: 40, pausedUntil: START + 1500 })];
    const dependency = fleetOf(store).get('api.example.com');
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.sent).toEqual([report('me', { breaker: 'off', pausedUntil: START + 1000, seenAt: START })]);
    expect(dependency.blockedUntil()).toBe(START + 1500);
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.sent).toHaveLength(2);
  });

  it('goes on alone when the store fails or hangs, says so once, and says when it answers again', async () => {
    const store = new FakeFleetStore();
    const health: string[] = [];
    const dependency = fleetOf(store, { onFleetStoreHealth: (change) => health.push(change.kind) }).get('api.example.com');
    store.failWith = new Error('ECONNREFUSED');
    dependency.finish(ticketOf(await dependency.admit()), { kind: 'rate-limited', retryAfterMs: 5000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(dependency.blockedUntil()).toBe(START + 5000);
    store.failWith = undefined;
    store.hang = true;
    await vi.advanceTimersByTimeAsync(1200);
    expect(health).toEqual(['unreachable']);
    store.hang = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(health).toEqual(['unreachable', 'reachable']);
  });

  it('rejects a store without exchange, and a worker id that cannot be one', () => {
    expect(() => resolveBackpressure({ fleet: { store: {} as FleetStateStore } })).toThrow(SqsWorkerConfigError);
    expect(() => resolveBackpressure({ fleet: { store: new FakeFleetStore(), workerId: '' } })).toThrow('backpressure.fleet.workerId');
    expect(() => resolveBackpressure({ fleet: { store: new FakeFleetStore(), syncIntervalMs: 10 } })).toThrow('fleet.syncIntervalMs');
  });
});
