/**
 * Time for the engine: the `timers` option's interface, and `VirtualTime`, a clock and
 * timers that move only when told, to run a worker (and your handlers) in virtual time in
 * tests and simulations.
 *
 * @example
 * ```ts
 * const time = new VirtualTime(Date.parse('2026-01-01'));
 * const worker = new SqsWorker({ ...options, now: time.now, timers: time });
 * await worker.start();
 * await time.advance(60 * 60_000); // an hour of retries, as fast as the CPU runs them
 * ```
 *
 * @packageDocumentation
 */
export { realTimers, type CancelTimer, type WorkerTimers } from './timers.js';
export { VirtualTime } from './virtual-time.js';
