import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { parseRetryState } from './retry-state.js';
import { RetryStateSigner } from './retry-state-signer.js';

const NOW = Date.UTC(2026, 10, 26);
const state = { v: 1 as const, attempt: 2, firstReceivedAt: NOW - 5000, originalMessageId: 'm-1', lastErrorType: 'TEMPORARY' };

describe('RetryStateSigner', () => {
  it('signs x-retry so that the state parses back with a MAC that verifies', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const parsed = parseRetryState(signer.sign(state), NOW);
    expect(parsed).toMatchObject(state);
    expect(parsed.mac).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verifies(parsed)).toBe(true);
  });

  it('refuses any change to any field, a missing MAC and another key', () => {
    const signer = new RetryStateSigner(['a'.repeat(40)]);
    const signed = parseRetryState(signer.sign(state), NOW);
    for (const changed of [{ attempt: 1 }, { originalMessageId: 'm-2' }, { firstReceivedAt: NOW }, { lastErrorType: 'X' }, { notBefore: NOW }]) {
      expect(signer.verifies({ ...signed, ...changed })).toBe(false);
    }
    expect(signer.verifies({ ...signed, mac: undefined })).toBe(false);
    expect(new RetryStateSigner(['b'.repeat(40)]).verifies(signed)).toBe(false);
  });

  it('signs with the first key and verifies with every one, for rotation', () => {
    const before = new RetryStateSigner(['old'.repeat(11)]);
    const during = new RetryStateSigner(['new'.repeat(11), 'old'.repeat(11)]);
    const after = new RetryStateSigner(['new'.repeat(11)]);
    expect(during.verifies(parseRetryState(before.sign(state), NOW))).toBe(true);
    expect(after.verifies(parseRetryState(during.sign(state), NOW))).toBe(true);
    expect(after.verifies(parseRetryState(before.sign(state), NOW))).toBe(false);
  });

  it('refuses no key and short keys, saying how to make one', () => {
    expect(() => new RetryStateSigner([])).toThrow(ConfigError);
    expect(() => new RetryStateSigner(['short'])).toThrow(/retryStateKeys: key 1 has 5 characters; use at least 32 .*openssl rand/);
  });

  it('an ephemeral signer trusts only itself', () => {
    const one = RetryStateSigner.ephemeral();
    const signed = parseRetryState(one.sign(state), NOW);
    expect(one.verifies(signed)).toBe(true);
    expect(RetryStateSigner.ephemeral().verifies(signed)).toBe(false);
  });
});
