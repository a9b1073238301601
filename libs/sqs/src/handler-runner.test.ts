import { classifyFailure } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { runWithTimeout } from './handler-runner.js';

describe('runWithTimeout', () => {
  it('fails a handler that never settles with a TimeoutError, classified TEMPORARY, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const outcome = await runWithTimeout((s) => {
      signal = s;
      return new Promise(() => undefined);
    }, 20, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, timedOut: true, stopped: false });
    expect(signal?.aborted).toBe(true);
    expect(classifyFailure(outcome.ok ? undefined : outcome.error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
  });

  it('turns a synchronous throw and a rejection with nothing into failures, never into exceptions', async () => {
    const stop = new AbortController().signal;
    expect(await runWithTimeout(() => { throw new Error('sync'); }, 1000, stop)).toMatchObject({ ok: false, timedOut: false });
    expect(await runWithTimeout(() => Promise.reject(), 1000, stop)).toMatchObject({ ok: false, error: undefined });
  });

  it('reports stopped when shutdown aborts a handler that ignores its signal', async () => {
    const stop = new AbortController();
    const running = runWithTimeout(() => new Promise(() => undefined), 60_000, stop.signal);
    stop.abort(new Error('stopping'));
    expect(await running).toMatchObject({ ok: false, stopped: true });
  });
});
