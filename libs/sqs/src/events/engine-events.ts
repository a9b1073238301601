import type { ProcessTrace } from '../tracing/process-trace.js';
import type { WorkerEvents } from './worker-events.js';

/**
 * The stream as the engine emits it: the public events, with the delivery's process
 * span for the trace subscriber. A listener typed with `WorkerEvents` accepts these.
 */
export interface EngineEvents extends WorkerEvents {
  handled: WorkerEvents['handled'] & { trace?: ProcessTrace };
  settled: WorkerEvents['settled'] & { trace?: ProcessTrace };
}

export type SettledOutcome = WorkerEvents['settled']['outcome'];
