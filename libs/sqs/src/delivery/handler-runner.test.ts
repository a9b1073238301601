import { classifyFailure } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { HandlerStop, runWithTimeout } from './handler-runner.js';

describe('runWithTimeout', () => {
  it('fails a handler that never settles with a TimeoutError, classified TEMPORARY, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const outcome = await runWithTimeout(
      (s) => {
        signal = s;
        return new Promise(() => undefined);
      },
      20,
      new HandlerStop(new AbortController().signal),
    );
    expect(outcome).toMatchObject({ ok: false, timedOut: true, stopped: false });
    expect(signal?.aborted).toBe(true);
    expect(classifyFailure(outcome.ok ? undefined : outcome.error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
  });

  it('turns a synchronous throw and a rejection with nothing into failures, never into exceptions', async () => {
    const stop = new HandlerStop(new AbortController().signal);
    expect(
      await runWithTimeout(
        () => {
          throw new Error('sync');
        },
        1000,
        stop,
      ),
    ).toMatchObject({ ok: false, timedOut: false });
    expect(await runWithTimeout(() => Promise.reject(), 1000, stop)).toMatchObject({ ok: false, error: undefined });
  });

  it('reports stopped when shutdown aborts a handler that ignores its signal', async () => {
    const stop = new AbortController();
    const running = runWithTimeout(() => new Promise(() => undefined), 60_000, new HandlerStop(stop.signal));
    stop.abort(new Error('stopping'));
    expect(await running).toMatchObject({ ok: false, stopped: true });
  });

  it('stops every handler running at shutdown, and one started after it at once', async () => {
    const stop = new AbortController();
    const handlerStop = new HandlerStop(stop.signal);
    const signals: AbortSignal[] = [];
    const hang = (signal: AbortSignal) => {
      signals.push(signal);
      return new Promise<void>(() => undefined);
    };
    const finished = await runWithTimeout(() => undefined, 60_000, handlerStop);
    const running = [runWithTimeout(hang, 60_000, handlerStop), runWithTimeout(hang, 60_000, handlerStop)];
    stop.abort(new Error('stopping'));
    expect(await Promise.all(running)).toMatchObject([{ stopped: true }, { stopped: true }]);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(finished).toEqual({ ok: true });
    expect(await runWithTimeout(hang, 60_000, handlerStop)).toMatchObject({ ok: false, stopped: true });
  });
});
