import type { Expiring, SameDelayTimer, SameDelayTimers } from '../time/same-delay-timers.js';
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

/** A running handler, told at shutdown. */
interface Stoppable {
  stopped(): void;
}

/**
 * Shutdown, told to every running handler through one listener on the worker's stop
 * signal. A listener per handler would cost each start and end a walk of all the others
 * (an `EventTarget` looks for a duplicate before it adds, and searches to remove): at
 * 200 in flight that walk was 2% of the worker's CPU.
 */
export class HandlerStop {
  private readonly running = new Set<Stoppable>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener(
      'abort',
      () => {
        for (const run of this.running) run.stopped();
        this.running.clear();
      },
      { once: true },
    );
  }

  /** Tells `run` at shutdown, or at once when already stopping. */
  add(run: Stoppable): void {
    if (this.signal.aborted) run.stopped();
    else this.running.add(run);
  }

  delete(run: Stoppable): void {
    this.running.delete(run);
  }
}

const SUCCEEDED: HandlerOutcome = Object.freeze({ ok: true });

/**
 * One handler run: its own timer's target and its own stop listener, so a run costs one
 * object rather than a closure for each (it runs once per message).
 */
class HandlerRun implements Expiring, Stoppable {
  readonly controller = new AbortController();
  private done = false;
  private timer: SameDelayTimer | undefined;
  private cancelTimer: CancelTimer | undefined;

  constructor(
    private readonly resolve: (outcome: HandlerOutcome) => void,
    private readonly timeout: number | SameDelayTimers,
    private readonly stop: HandlerStop,
    timers: WorkerTimers,
  ) {
    stop.add(this);
    if (this.done) return;
    if (typeof timeout === 'number') this.cancelTimer = timers.after(timeout, () => this.expired());
    else this.timer = timeout.start(this);
  }

  get finished(): boolean {
    return this.done;
  }

  expired(): void {
    const error = new HandlerTimeoutError(typeof this.timeout === 'number' ? this.timeout : this.timeout.delayMs);
    this.finish({ ok: false, error, timedOut: true, stopped: false }, error);
  }

  stopped(): void {
    const { reason } = this.stop.signal;
    this.finish({ ok: false, error: reason, timedOut: false, stopped: true }, reason);
  }

  succeeded(): void {
    this.finish(SUCCEEDED);
  }

  failed(error: unknown): void {
    this.finish({ ok: false, error, timedOut: false, stopped: false });
  }

  private finish(outcome: HandlerOutcome, abortWith?: unknown): void {
    if (this.done) return;
    this.done = true;
    if (this.timer && typeof this.timeout !== 'number') this.timeout.cancel(this.timer);
    this.cancelTimer?.();
    this.stop.delete(this);
    if (abortWith !== undefined) this.controller.abort(abortWith);
    this.resolve(outcome);
  }
}

/**
 * Runs a handler with a timeout. On timeout the handler's signal is aborted and the
 * attempt fails with a `TimeoutError`; `stop` aborts it too, for shutdown, and
 * the outcome says `stopped` so the message is released rather than retried.
 * Whatever the handler does (throws synchronously, rejects with nothing, never
 * settles), this resolves.
 */
export function runWithTimeout(
  run: (signal: AbortSignal) => Promise<void> | void,
  /** The timeout in ms, or the consumer's shared timers of that delay. */
  timeout: number | SameDelayTimers,
  stop: HandlerStop,
  timers: WorkerTimers = realTimers,
): Promise<HandlerOutcome> {
  let resolve!: (outcome: HandlerOutcome) => void;
  const promise = new Promise<HandlerOutcome>((settle) => (resolve = settle));
  const handlerRun = new HandlerRun(resolve, timeout, stop, timers);
  // A stop already under way ended the run before the handler started.
  if (handlerRun.finished) return promise;
  let ran: Promise<void> | void;
  try {
    ran = run(handlerRun.controller.signal);
  } catch (error) {
    handlerRun.failed(error);
    return promise;
  }
  Promise.resolve(ran).then(
    () => handlerRun.succeeded(),
    (error: unknown) => handlerRun.failed(error),
  );
  return promise;
}
