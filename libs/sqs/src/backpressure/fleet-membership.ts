import type { BreakerState } from './circuit-breaker.js';
import type { DispatchPace } from './dispatch-pace.js';
import type { FleetMemberState, FleetView } from './fleet-state.js';
import type { ResolvedFleet } from './options.js';

/** Workers whose pace was set this close after a measurement were rejected in the same burst. */
const SAME_BURST_MS = 200;

/** What a gate joining the fleet takes on: the fleet's pause, and its share of the fleet's rate. */
export interface FleetTerms {
  pausedUntil: number;
  sharePerSecond: number | undefined;
}

function sumOfPaces(paces: ReadonlyArray<{ pacePerSecond: number }>): number {
  return paces.reduce((sum, other) => sum + other.pacePerSecond, 0);
}

/**
 * One gate's part in its fleet: the last view it read of the other workers, and its
 * estimate of the rate the whole fleet is admitted at. The estimate travels as a ratio to
 * the gate's own pace, so it grows as the pace speeds up.
 */
export class FleetMembership {
  private view: FleetView | undefined;
  /**
   * The fleet's rate over this worker's pace when the pace was set. Unknown from a
   * measurement of its own until the fleet's reports that follow it are read, as the
   * others rejected in the same burst report then.
   */
  private sharedBy: number | undefined = 1;

  constructor(
    private readonly fleet: ResolvedFleet,
    private readonly now: () => number,
  ) {}

  /** The pace was just measured from this worker's own calls. */
  measured(): void {
    this.sharedBy = undefined;
  }

  report(workerId: string, pace: DispatchPace | undefined, breaker: BreakerState | 'off', pausedUntil: number, recoveredAt: number): FleetMemberState {
    const own = breaker === 'open' ? 0 : (pace?.ratePerSecond ?? 0);
    return {
      workerId,
      pacePerSecond: own,
      pacedSince: own > 0 ? (pace?.pacedSince ?? 0) : 0,
      ratePerSecond: own * (this.sharedBy ?? 0),
      pausedUntil,
      breaker,
      recoveredAt,
      seenAt: this.now(),
    };
  }

  /** Keeps the view, and settles this worker's own estimate once the reports after its measurement are in. */
  read(view: FleetView, pace: DispatchPace | undefined): void {
    this.view = view;
    if (!pace?.active || this.sharedBy !== undefined || view.readAt - pace.measuredAt < this.fleet.syncIntervalMs / 2) return;
    // What got through to this worker plus what the others calling by then send: what the
    // fleet is admitted at. One paced later was not part of it; counted, its share would
    // be given twice.
    const sharing = view.othersPaces.filter((other) => other.pacedSince <= pace.measuredAt + SAME_BURST_MS);
    this.sharedBy = (pace.ratePerSecond + sumOfPaces(sharing)) / pace.ratePerSecond;
  }

  /**
   * The fleet's rate divided among every worker sharing the dependency, open breakers
   * included, so the total stays put while they join. The rate is the others' mean
   * estimate, else this worker's own (the view may predate it), else what the paced ones
   * send (none has read the fleet since its measurement). The pause only for a worker
   * `joining`. Nothing from a stale view, or while this worker's own estimate is unknown.
   */
  terms(joining: boolean, pace: DispatchPace | undefined): FleetTerms | undefined {
    const view = this.view;
    if (!view || this.now() - view.readAt > this.fleet.staleMs) return undefined;
    const own = pace?.active && this.sharedBy !== undefined ? pace.ratePerSecond * this.sharedBy : 0;
    const fleetRate = view.ratePerSecond || own || sumOfPaces(view.othersPaces);
    const share = fleetRate > 0 && this.sharedBy !== undefined ? fleetRate / view.members : undefined;
    return { pausedUntil: joining ? view.pausedUntil : 0, sharePerSecond: share };
  }

  /** The gate paces at its share of the view's rate: its pace times the workers sharing is the fleet's rate. */
  adopted(): void {
    if (this.view) this.sharedBy = this.view.members;
  }

  /** Whether another worker saw the dependency recover after `since`. */
  recoveredSince(since: number): boolean {
    return (this.view?.recoveredAt ?? 0) > since;
  }
}
