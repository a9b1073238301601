import { realTimers, type WorkerTimers } from './timers.js';

/** Waits `ms`, or less if `signal` aborts first. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal, timers: WorkerTimers = realTimers): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = timers.after(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
