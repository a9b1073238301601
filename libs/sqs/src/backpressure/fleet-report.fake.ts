import type { FleetMemberState } from './fleet-state.js';

/** A fleet member's report for tests: a closed breaker, not paced, paused or recovered, seen at `seenAt`. */
export function memberReport(workerId: string, seenAt: number, fields: Partial<FleetMemberState> = {}): FleetMemberState {
  return { workerId, pacePerSecond: 0, pacedSince: 0, ratePerSecond: 0, pausedUntil: 0, breaker: 'closed', recoveredAt: 0, seenAt, ...fields };
}
