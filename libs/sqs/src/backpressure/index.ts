export { AimdLimit } from './aimd-limit.js';
export {
  CircuitBreaker,
  type BreakerAdmission,
  type BreakerState,
  type BreakerTicket,
  type CallResult,
  type CircuitBreakerOptions,
} from './circuit-breaker.js';
export { Dependencies } from './dependencies.js';
export type { Admission, CallOutcome, DeferCause, DependencySnapshot, DependencyTicket } from './admission.js';
export { Dependency } from './dependency.js';
export { DEFAULT_BREAKER, resolveBackpressure, type BackpressureOptions, type FleetOptions, type ResolvedBackpressure } from './options.js';
export { fleetView, isCurrentReport, type FleetMemberState, type FleetStateStore, type FleetView } from './fleet-state.js';
export { callOutcomeOf, dependencyKeyOf } from './call-outcome.js';
