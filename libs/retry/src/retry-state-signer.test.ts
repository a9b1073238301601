import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { encodeRetryState, parseRetryState } from './retry-state.js';
import { RetryStateSigner } from './retry-state-signer.js';

const NOW = Date.UTC(2026, 10, 26);
/** Stands for `messageDigest` of the message the state travels with. */
const MESSAGE = 'digest-of-the-message';
const state = { v: 1 as const, attempt: 2, firstReceivedAt: NOW - 5000, originalMessageId: 'm-1', lastErrorType: 'TEMPORARY' };

describe('RetryStateSigner', () => {
  it('signs x-retry so that the state parses back with a MAC that verifies', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const parsed = parseRetryState(signer.sign(state, MESSAGE), NOW);
    expect(parsed).toMatchObject(state);
    expect(parsed.mac).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verifies(parsed, MESSAGE)).toBe(true);
  });

  it('refuses any change to any field, a missing MAC and another key', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const signed = parseRetryState(signer.sign(state, MESSAGE), NOW);
    for (const changed of [{ attempt: 1 }, { originalMessageId: 'm-2' }, { firstReceivedAt: NOW }, { lastErrorType: 'X' }, { notBefore: NOW }]) {
      expect(signer.verifies({ ...signed, ...changed }, MESSAGE)).toBe(false);
    }
    expect(signer.verifies({ ...signed, mac: undefined }, MESSAGE)).toBe(false);
    expect(new RetryStateSigner(['b'.repeat(40)]).verifies(signed, MESSAGE)).toBe(false);
  });

  it('writes x-retry as encodeRetryState writes the state with its MAC', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const detailed = { ...state, lastErrorType: 'TEMPORARY', lastError: 'quote " and newline \n', notBefore: NOW + 1000 };
    const signed = signer.sign(detailed, MESSAGE);
    expect(signed).toBe(encodeRetryState(parseRetryState(signed, NOW)));
    expect(parseRetryState(signed, NOW)).toEqual({ ...detailed, mac: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('binds the state to its message: the same state on another message does not verify', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const signed = parseRetryState(signer.sign(state, MESSAGE), NOW);
    expect(signer.verifies(signed, 'digest-of-another-message')).toBe(false);
  });

  it('keeps every identity through a rolling rotation: tasks of adjacent steps verify each other', () => {
    const [oldKey, newKey] = ['old'.repeat(11), 'new'.repeat(11)];
    // The steps docs/security.md gives: verify the new key everywhere, then sign with it, then drop the old.
    const steps = [[oldKey], [oldKey, newKey], [newKey, oldKey], [newKey]].map((keys) => new RetryStateSigner(keys));
    for (let i = 0; i + 1 < steps.length; i++) {
      const [older, newer] = [steps[i]!, steps[i + 1]!];
      expect(newer.verifies(parseRetryState(older.sign(state, MESSAGE), NOW), MESSAGE)).toBe(true);
      expect(older.verifies(parseRetryState(newer.sign(state, MESSAGE), NOW), MESSAGE)).toBe(true);
    }
    // The one-step rotation (`new,old` while tasks still run `old`) is what loses identity.
    expect(steps[0]!.verifies(parseRetryState(steps[2]!.sign(state, MESSAGE), NOW), MESSAGE)).toBe(false);
  });

  it('refuses no key and short keys, saying how to make one', () => {
    expect(() => new RetryStateSigner([])).toThrow(ConfigError);
    expect(() => new RetryStateSigner(['short'])).toThrow(/retryStateKeys: key 1 has 5 characters; use at least 32 .*openssl rand/);
  });

  it('an ephemeral signer trusts only itself', () => {
    const one = RetryStateSigner.ephemeral();
    const signed = parseRetryState(one.sign(state, MESSAGE), NOW);
    expect(one.verifies(signed, MESSAGE)).toBe(true);
    expect(RetryStateSigner.ephemeral().verifies(signed, MESSAGE)).toBe(false);
  });
});
