/** Cancels a timer; calling it again, or after the timer fired, does nothing. */
export type CancelTimer = () => void;

/**
 * The engine's timers. Real ones by default; a simulation passes virtual ones with its own
 * `now`, so the same engine runs in virtual time, every wait advanced by the simulation.
 */
export interface WorkerTimers {
  /**
   * Calls `fn` once, `ms` from now. A `background` timer (a heartbeat, a periodic flush)
   * does not keep the process alive on its own.
   */
  after(ms: number, fn: () => void, background?: boolean): CancelTimer;
}

/** Node's timers. */
export const realTimers: WorkerTimers = {
  after(ms, fn, background = false) {
    const timer = setTimeout(fn, ms);
    if (background) timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * Calls `fn` every `ms` until cancelled, as a chain of single timers, so a virtual clock
 * has only `after` to provide. Background by default: periodic work never holds a process.
 */
export function every(timers: WorkerTimers, ms: number, fn: () => void, background = true): CancelTimer {
  let stopped = false;
  let cancel: CancelTimer = () => {};
  const arm = () => {
    cancel = timers.after(
      ms,
      () => {
        if (stopped) return;
        arm();
        fn();
      },
      background,
    );
  };
  arm();
  return () => {
    stopped = true;
    cancel();
  };
}

/**
 * `promise`, or a rejection with `timeoutError()` once `ms` have passed. The abandoned
 * promise's late rejection is swallowed: it must not surface as an unhandled rejection.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, timeoutError: () => Error, timers: WorkerTimers): Promise<T> {
  let cancel: CancelTimer = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    cancel = timers.after(ms, () => reject(timeoutError()));
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => cancel());
}
