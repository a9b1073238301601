/**
 * For those who write a fleet state store or read the backpressure settings: the store's
 * interface, the breaker's defaults and the rule by which the engine trusts a fleet
 * report. The options themselves are in the package root.
 *
 * @packageDocumentation
 */
export { DEFAULT_BREAKER } from './options.js';
export { isCurrentReport } from './fleet-state.js';
export type { FleetMemberState, FleetStateStore } from './fleet-state.js';
