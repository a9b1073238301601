import { describe, expect, it } from 'vitest';
import { Batcher, type EntryOutcome } from './batcher.js';
import { realTimers } from '../time/timers.js';

function recordingBatcher(options: { maxWaitMs?: number; maxBytes?: number; answer?: (entries: string[]) => EntryOutcome[] | Promise<EntryOutcome[]> } = {}) {
  const calls: string[][] = [];
  const batcher = new Batcher<string>({
    maxEntries: 10,
    timers: realTimers,
    maxWaitMs: options.maxWaitMs ?? 10_000,
    ...(options.maxBytes ? { maxBytes: options.maxBytes, sizeOf: (entry: string) => entry.length } : {}),
    send: async (entries) => {
      calls.push(entries);
      return options.answer ? options.answer(entries) : entries.map(() => ({ ok: true as const }));
    },
  });
  return { batcher, calls };
}

describe('Batcher', () => {
  it('sends a full batch of 10 at once, without waiting', async () => {
    const { batcher, calls } = recordingBatcher();
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.add(`m${i}`)));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(10);
    expect(outcomes.every((o) => o.ok)).toBe(true);
  });

  it('sends a partial batch after the wait, or on flush', async () => {
    const { batcher, calls } = recordingBatcher({ maxWaitMs: 5 });
    await batcher.add('alone');
    expect(calls).toEqual([['alone']]);
    const { batcher: flushed, calls: flushedCalls } = recordingBatcher();
    const pending = flushed.add('x');
    await flushed.flush();
    await pending;
    expect(flushedCalls).toEqual([['x']]);
  });

  it('reports a Failed entry to its own caller only', async () => {
    const { batcher } = recordingBatcher({
      answer: (entries) => entries.map((entry) => (entry === 'bad' ? { ok: false, code: 'ReceiptHandleIsInvalid', message: 'gone' } : { ok: true })),
    });
    const [good, bad] = await Promise.all([batcher.add('good'), batcher.add('bad'), batcher.flush()]);
    expect(good).toEqual({ ok: true });
    expect(bad).toMatchObject({ ok: false, code: 'ReceiptHandleIsInvalid' });
  });

  it('fails every entry when the whole call fails, and never rejects', async () => {
    const { batcher } = recordingBatcher({
      answer: () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' });
      },
    });
    const outcomes = await Promise.all([batcher.add('a'), batcher.add('b'), batcher.flush()]);
    expect(outcomes.slice(0, 2)).toEqual([
      expect.objectContaining({ ok: false, code: 'NetworkingError' }),
      expect.objectContaining({ ok: false, code: 'NetworkingError' }),
    ]);
  });

  it('starts a new batch rather than exceed the byte limit', async () => {
    const { batcher, calls } = recordingBatcher({ maxBytes: 10 });
    await Promise.all([batcher.add('123456'), batcher.add('7890ab'), batcher.flush()]);
    expect(calls).toEqual([['123456'], ['7890ab']]);
  });
});
