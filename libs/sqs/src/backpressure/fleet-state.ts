/** What one worker of a fleet reports about one dependency. */
export interface FleetMemberState {
  /** The worker, unique within the fleet. */
  workerId: string;
  /** The calls per second the worker itself is paced at; 0 when it is not paced, or its breaker is open. */
  pacePerSecond: number;
  /** Epoch ms since which it has been paced; 0 when it is not. */
  pacedSince: number;
  /**
   * The calls per second the worker estimates the whole fleet is admitted at. 0 when it
   * does not know yet (its pace is just measured), is not paced, or its breaker is open.
   */
  ratePerSecond: number;
  /** Epoch ms until which the worker holds every call after a 429; 0 when it does not. */
  pausedUntil: number;
  /** Its breaker's state, or `off` when it has none. */
  breaker: 'closed' | 'open' | 'half-open' | 'off';
  /** Epoch ms of the worker's last recovery (its breaker closing after it was open); 0 when none. */
  recoveredAt: number;
  /** Epoch ms of this report, by the worker's clock. */
  seenAt: number;
}

/**
 * Where a fleet's workers share what each learnt about a dependency: Redis, DynamoDB or
 * anything that can store a few hundred bytes per worker and read them back in one call.
 */
export interface FleetStateStore {
  /**
   * Records `state` under `dependency`, replacing this worker's previous report, and
   * returns every worker's latest report for it, as stored. Reports older than `staleMs`
   * may be left out or deleted; the engine checks each report and ignores any that is
   * stale or malformed.
   */
  exchange(dependency: string, state: FleetMemberState, staleMs: number): Promise<readonly unknown[]>;
}

/** What the other workers' reports add up to, as one worker applies it. */
export interface FleetView {
  /** When the reports were read; an old view is not applied. */
  readAt: number;
  /** The workers sharing the dependency, this one included: open breakers too, as they will call again. */
  members: number;
  /** The paced workers' mean estimate of the rate the fleet is admitted at; 0 when none has one. */
  ratePerSecond: number;
  /** What each of the other workers calling is paced at, and since when. */
  othersPaces: ReadonlyArray<{ pacePerSecond: number; pacedSince: number }>;
  /** The latest pause another worker holds after a 429; 0 when none. */
  pausedUntil: number;
  /** The latest recovery another worker saw; 0 when none. */
  recoveredAt: number;
}

/**
 * Whether a report is within `staleMs` of `now`, either way. One from further ahead is a
 * clock running fast or a forgery: trusted, it would never go stale.
 */
export function isCurrentReport(seenAt: number, now: number, staleMs: number): boolean {
  return Math.abs(now - seenAt) <= staleMs;
}

/**
 * Reads a store's reports into one view. Reports come from other processes, so any that
 * is malformed, older than `staleMs` or as far in the future is left out rather than
 * trusted, and a pause is believed for at most `maxPauseMs` from its report.
 */
export function fleetView(reports: readonly unknown[], self: FleetMemberState, now: number, staleMs: number, maxPauseMs: number): FleetView {
  const fresh = reports.filter(
    (report): report is FleetMemberState => isMemberState(report) && report.workerId !== self.workerId && isCurrentReport(report.seenAt, now, staleMs),
  );
  const calling = fresh.filter((member) => member.breaker !== 'open');
  const estimates = [self, ...calling].filter((member) => member.breaker !== 'open' && member.ratePerSecond > 0).map((member) => member.ratePerSecond);
  const others = (pick: (member: FleetMemberState) => number) => Math.max(0, ...fresh.map(pick));
  return {
    readAt: now,
    members: 1 + fresh.length,
    othersPaces: calling.filter((member) => member.pacePerSecond > 0).map(({ pacePerSecond, pacedSince }) => ({ pacePerSecond, pacedSince })),
    ratePerSecond: estimates.length === 0 ? 0 : estimates.reduce((sum, rate) => sum + rate, 0) / estimates.length,
    pausedUntil: others((member) => Math.min(member.pausedUntil, Math.min(member.seenAt, now) + maxPauseMs)),
    recoveredAt: others((member) => (member.breaker === 'open' ? 0 : member.recoveredAt)),
  };
}

const BREAKER_STATES: ReadonlySet<unknown> = new Set(['closed', 'open', 'half-open', 'off']);

function isMemberState(value: unknown): value is FleetMemberState {
  if (typeof value !== 'object' || value === null) return false;
  const report = value as Record<string, unknown>;
  const finite = (key: string) => typeof report[key] === 'number' && Number.isFinite(report[key]) && (report[key] as number) >= 0;
  return (
    typeof report.workerId === 'string' &&
    BREAKER_STATES.has(report.breaker) &&
    ['pacePerSecond', 'pacedSince', 'ratePerSecond', 'pausedUntil', 'recoveredAt', 'seenAt'].every(finite)
  );
}
