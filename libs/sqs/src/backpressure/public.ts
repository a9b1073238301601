/**
 * Backpressure: the types of the `backpressure` option and of the dependency's snapshot in
 * `health()`, and for those who write a fleet state store, the store's interface, the
 * breaker's defaults and the rule by which the engine trusts a fleet report.
 *
 * @packageDocumentation
 */
export { DEFAULT_BREAKER, type BackpressureOptions, type FleetOptions } from './options.js';
export type { CircuitBreakerOptions } from './circuit-breaker.js';
export type { DependencySnapshot } from './admission.js';
export { isCurrentReport } from './fleet-state.js';
export type { FleetMemberState, FleetStateStore } from './fleet-state.js';
