import { describe, expect, it } from 'vitest';
import { firstAbortOf } from './first-abort.js';

describe('firstAbortOf', () => {
  it('aborts with the reason of the first source to abort, and not again for a later one', () => {
    const sources = [new AbortController(), new AbortController(), new AbortController()];
    const { signal } = firstAbortOf(sources.map((source) => source.signal));
    expect(signal.aborted).toBe(false);
    sources[1]!.abort('timed out');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('timed out');
    sources[0]!.abort('stopped');
    expect(signal.reason).toBe('timed out');
  });

  it('is aborted at once when a source already is', () => {
    const done = new AbortController();
    done.abort('stopped');
    const { signal } = firstAbortOf([new AbortController().signal, done.signal]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('stopped');
  });

  it('no longer follows its sources once released', () => {
    const source = new AbortController();
    const { signal, release } = firstAbortOf([source.signal, new AbortController().signal]);
    release();
    source.abort('late');
    expect(signal.aborted).toBe(false);
  });

  it('is the one source itself for a batch of one', () => {
    const source = new AbortController();
    expect(firstAbortOf([source.signal]).signal).toBe(source.signal);
  });
});
