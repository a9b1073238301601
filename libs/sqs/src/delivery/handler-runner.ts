import type { SameDelayTimers } from '../time/same-delay-timers.js';
import { realTimers, type CancelTimer, type WorkerTimers } from '../time/timers.js';

export type HandlerOutcome = { ok: true } | { ok: false; error: unknown; timedOut: boolean; stopped: boolean };

/** The error a timed-out handler fails with; classified as TEMPORARY. */
export class HandlerTimeoutError extends Error {
  constructor(
    /** The `handlerTimeoutMs` it ran past. */
    readonly timeoutMs: number,
  ) {
    super(`handler did not finish within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Shutdown, told to every running handler through one listener on the worker's stop
 * signal. A listener per handler would cost each start and end a walk of all the others
 * (an `EventTarget` looks for a duplicate before it adds, and searches to remove): at
 * 200 in flight that walk was 2% of the worker's CPU.
 */
export class HandlerStop {
  private readonly listeners = new Set<() => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener(
      'abort',
      () => {
        for (const listener of this.listeners) listener();
        this.listeners.clear();
      },
      { once: true },
    );
  }

  /** Calls `listener` at shutdown, or at once when already stopping; returns how to stop listening. */
  listen(listener: () => void): () => void {
    if (this.signal.aborted) {
      listener();
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const SUCCEEDED: HandlerOutcome = Object.freeze({ ok: true });

/**
 * Runs a handler with a timeout. On timeout the handler's signal is aborted and the
 * attempt fails with a `TimeoutError`; `stop` aborts it too, for shutdown, and
 * the outcome says `stopped` so the message is released rather than retried.
 * Whatever the handler does (throws synchronously, rejects with nothing, never
 * settles), this resolves. One promise, one timer and one stop listener per run: it runs
 * once per message.
 */
export function runWithTimeout(
  run: (signal: AbortSignal) => Promise<void> | void,
  /** The timeout in ms, or the consumer's shared timers of that delay. */
  timeout: number | SameDelayTimers,
  stop: HandlerStop,
  timers: WorkerTimers = realTimers,
): Promise<HandlerOutcome> {
  return new Promise<HandlerOutcome>((resolve) => {
    const controller = new AbortController();
    let done = false;
    // Set once each below; `finish` may run before either is (a stop already under way).
    let cancelTimeout: CancelTimer | undefined = undefined;
    let stopListening: (() => void) | undefined = undefined;
    const finish = (outcome: HandlerOutcome, abortWith?: unknown) => {
      if (done) return;
      done = true;
      cancelTimeout?.();
      stopListening?.();
      if (abortWith !== undefined) controller.abort(abortWith);
      resolve(outcome);
    };
    // A handler that ignores its signal must not hold shutdown hostage.
    stopListening = stop.listen(() => finish({ ok: false, error: stop.signal.reason, timedOut: false, stopped: true }, stop.signal.reason));
    if (done) return;
    const timedOut = () => {
      const error = new HandlerTimeoutError(typeof timeout === 'number' ? timeout : timeout.delayMs);
      finish({ ok: false, error, timedOut: true, stopped: false }, error);
    };
    cancelTimeout = typeof timeout === 'number' ? timers.after(timeout, timedOut) : timeout.after(timedOut);
    let ran: Promise<void> | void;
    try {
      ran = run(controller.signal);
    } catch (error) {
      finish({ ok: false, error, timedOut: false, stopped: false });
      return;
    }
    Promise.resolve(ran).then(
      () => finish(SUCCEEDED),
      (error: unknown) => finish({ ok: false, error, timedOut: false, stopped: false }),
    );
  });
}
