export type HandlerOutcome = { ok: true } | { ok: false; error: unknown; timedOut: boolean; stopped: boolean };

/** The error a timed-out handler fails with; classified as TEMPORARY. */
export class HandlerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`handler did not finish within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Runs a handler with a timeout. On timeout the handler's signal is aborted and the
 * attempt fails with a `TimeoutError`; `stopSignal` aborts it too, for shutdown, and
 * the outcome says `stopped` so the message is released rather than retried.
 * Whatever the handler does (throws synchronously, rejects with nothing, never
 * settles), this resolves.
 */
export async function runWithTimeout(
  run: (signal: AbortSignal) => Promise<void> | void,
  timeoutMs: number,
  stopSignal: AbortSignal,
): Promise<HandlerOutcome> {
  const controller = new AbortController();
  let onStop: () => void = () => undefined;
  // A handler that ignores its signal must not hold shutdown hostage.
  const stopped = new Promise<HandlerOutcome>((resolve) => {
    onStop = () => {
      controller.abort(stopSignal.reason);
      resolve({ ok: false, error: stopSignal.reason, timedOut: false, stopped: true });
    };
    if (stopSignal.aborted) onStop();
    else stopSignal.addEventListener('abort', onStop, { once: true });
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HandlerOutcome>((resolve) => {
    timer = setTimeout(() => {
      const error = new HandlerTimeoutError(timeoutMs);
      controller.abort(error);
      resolve({ ok: false, error, timedOut: true, stopped: false });
    }, timeoutMs);
  });
  const ran = Promise.resolve()
    .then(() => run(controller.signal))
    .then(
      (): HandlerOutcome => ({ ok: true }),
      (error: unknown): HandlerOutcome => ({ ok: false, error, timedOut: false, stopped: false }),
    );
  try {
    return await Promise.race([ran, timedOut, stopped]);
  } finally {
    clearTimeout(timer);
    stopSignal.removeEventListener('abort', onStop);
  }
}
