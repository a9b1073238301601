/**
 * What one run of the engine alone is given and answers (run.ts), apart from how runs are
 * started (runs.ts): the run's own process loads nothing else, so its heap holds only the
 * engine and its queue.
 */
/**
 * Tracing as WORKER_TRACING=off, on with no SDK registered, on with the Node SDK, and on
 * with the same SDK's bare spans (nothing set on them, no context made active).
 */
export const TRACING_MODES = ['off', 'no-sdk', 'sdk', 'sdk-floor'] as const;
export type TracingMode = (typeof TRACING_MODES)[number];

/** One run of the engine alone (run.ts). */
export interface RunSpec {
  tracing: TracingMode;
  messages: number;
  /** A `traceparent` on every message. */
  tracedIn: boolean;
  /** How long every SQS call takes to answer. */
  latencyMs: number;
  /** Each call answers up to this much sooner or later than `latencyMs`, evenly spread. */
  latencySpreadMs?: number;
  handlerMs: number;
  maxInFlight: number;
  /** Undefined: the worker's default (`maxInFlight`). */
  prefetch?: number;
  /** Undefined: the worker's default. */
  pollers?: number;
  /** Tenants on, read from `body.tenant`, which no message names: one tenant, the happy path's cost of turning them on. */
  tenants?: boolean;
  /** Where to write a CPU profile (`.cpuprofile`) of the timed window, from the worker's start to the last delete. */
  profilePath?: string;
  /** The retry path: every message's first attempt fails (TEMPORARY), its copy sent with no delay, and succeeds on its second. */
  failOnce?: boolean;
  /** The handlers slow down for the last `lastMessages` (a dependency that degrades): each takes `handlerMs` instead. */
  slowdown?: { lastMessages: number; handlerMs: number };
}

export interface RunResult {
  cpuMicrosPerMessage: number;
  messagesPerSecond: number;
  /** Messages given back unstarted (visibility 0), per message done. */
  givenBackPerMessage: number;
  /** The most receives any one message took before it was done: 1 when none was given back. */
  mostReceives: number;
  /** Messages the queue's redrive (maxReceiveCount 5) moved to the DLQ: given back so often that they never ran. */
  redriven: number;
  /** SQS calls of every kind per message, from the start to the last delete. */
  callsPerMessage: number;
}
