import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeDeadLetterRecord, parseDeadLetterRecord } from './dead-letter-record.js';
import { InvalidRetryStateError } from './errors.js';
import { parsePolicyOverride } from './policy-override.js';
import { encodeRetryState, freshRetryState, parseRetryState, retryStateSchema, type RetryState } from './retry-state.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

const validState: fc.Arbitrary<RetryState> = fc
  .record(
    {
      attempt: fc.integer({ min: 1, max: 100_000 }),
      firstReceivedAt: fc.integer({ min: Date.UTC(2020, 0, 1), max: NOW }),
      originalMessageId: fc.string({ minLength: 1, maxLength: 128 }),
      lastErrorType: fc.string({ maxLength: 64 }),
      lastError: fc.string({ maxLength: 256 }),
      notBeforeOffset: fc.integer({ min: 0, max: 10 * 24 * 3600 * 1000 }),
    },
    { requiredKeys: ['attempt', 'firstReceivedAt', 'originalMessageId'] },
  )
  .map(({ notBeforeOffset, ...rest }) => {
    const state: RetryState = { v: 1, ...rest };
    if (notBeforeOffset !== undefined) state.notBefore = rest.firstReceivedAt + notBeforeOffset;
    return state;
  });

function expectInvalid(raw: string) {
  expect(() => parseRetryState(raw, NOW)).toThrow(InvalidRetryStateError);
}

describe('x-retry codec', () => {
  it('round-trips: parse(serialize(x)) = x', () => {
    fc.assert(
      fc.property(validState, (state) => {
        expect(parseRetryState(encodeRetryState(state), NOW)).toEqual(state);
      }),
    );
  });

  it('answers any garbage with a valid state or InvalidRetryStateError, never anything else', () => {
    const garbage = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({ v: fc.jsonValue(), attempt: fc.jsonValue(), firstReceivedAt: fc.jsonValue(), originalMessageId: fc.jsonValue() })
        .map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(garbage, (raw) => {
        try {
          const state = parseRetryState(raw, NOW);
          expect(state.v).toBe(1);
          expect(Number.isInteger(state.attempt)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRetryStateError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts nothing its schema rejects, at every edge of every field', () => {
    const edgeNumber = fc.constantFrom(0, 1, 1.5, -1, 20, 1e9, 2 ** 53, Number.MAX_VALUE, Date.UTC(2020, 0, 1) - 1, Date.UTC(2020, 0, 1), NOW, NOW + 0.5);
    const edgeString = fc.oneof(
      fc.constantFrom('', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(256), 'x'.repeat(257)),
      fc.string(),
    );
    const mac = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{42,44}$/), fc.constantFrom('a'.repeat(42) + '=', 'a'.repeat(42) + '/'));
    const anyValue = fc.oneof(edgeNumber, edgeString, fc.jsonValue(), mac);
    const field = fc.constantFrom(
      'v',
      'attempt',
      'firstReceivedAt',
      'originalMessageId',
      'lastErrorType',
      'lastError',
      'notBefore',
      'mac',
      'extra',
      '__proto__',
    );
    // One field changed (JSON.parse keeps a key's last value): a valid state with one bad field is what a looser check would let through.
    const nearState = fc
      .tuple(validState, field, anyValue)
      .map(([state, name, value]) => JSON.stringify(state).replace(/\}$/, `,${JSON.stringify(name)}:${JSON.stringify(value)}}`));
    fc.assert(
      fc.property(
        fc.oneof(
          nearState,
          validState.map((state) => JSON.stringify(state)),
        ),
        (raw) => {
          let accepted = true;
          try {
            parseRetryState(raw, NOW);
          } catch {
            accepted = false;
          }
          if (accepted) expect(retryStateSchema.safeParse(JSON.parse(raw)).success).toBe(true);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['not JSON', 'retry=3'],
    ['a negative attempt', JSON.stringify({ v: 1, attempt: -1, firstReceivedAt: NOW, originalMessageId: 'm' })],
    ['a NaN attempt', '{"v":1,"attempt":NaN,"firstReceivedAt":1,"originalMessageId":"m"}'],
    ['an attempt of 10^9', JSON.stringify({ v: 1, attempt: 1e9, firstReceivedAt: NOW, originalMessageId: 'm' })],
    ['a future firstReceivedAt', JSON.stringify({ v: 1, attempt: 2, firstReceivedAt: NOW + 3_600_000, originalMessageId: 'm' })],
    ['the wrong version', JSON.stringify({ v: 2, attempt: 2, firstReceivedAt: NOW, originalMessageId: 'm' })],
    ['10 KB', JSON.stringify({ v: 1, attempt: 2, firstReceivedAt: NOW, originalMessageId: 'm', lastError: 'x'.repeat(10_000) })],
    ['an unknown field', JSON.stringify({ v: 1, attempt: 2, firstReceivedAt: NOW, originalMessageId: 'm', extra: true })],
    ['a fractional attempt', JSON.stringify({ v: 1, attempt: 1.5, firstReceivedAt: NOW, originalMessageId: 'm' })],
    ['a notBefore before the first receive', JSON.stringify({ v: 1, attempt: 2, firstReceivedAt: NOW, originalMessageId: 'm', notBefore: NOW - 10 })],
  ])('rejects %s', (_label, raw) => expectInvalid(raw));

  it('names the problem and says what to do', () => {
    expect(() => parseRetryState('{"v":1}', NOW)).toThrow(/x-retry is invalid: attempt: .*replay it with --reset-attempts/);
  });

  it('starts a fresh message at attempt 1', () => {
    expect(freshRetryState('abc', NOW)).toEqual({ v: 1, attempt: 1, firstReceivedAt: NOW, originalMessageId: 'abc' });
  });
});

describe('x-retry-policy codec', () => {
  it('accepts a valid override', () => {
    expect(parsePolicyOverride('{"maxAttempts":3,"deadlineSeconds":600,"backoff":{"type":"fixed","delayMs":5000,"jitter":"none"}}')).toEqual({
      maxAttempts: 3,
      deadlineSeconds: 600,
      backoff: { type: 'fixed', delayMs: 5000, jitter: { type: 'none' } },
    });
  });

  it.each([
    ['a negative delay', '{"backoff":{"type":"fixed","delayMs":-5}}'],
    ['maxAttempts of 0', '{"maxAttempts":0}'],
    ['an unknown strategy', '{"backoff":{"type":"fibonacci","baseMs":100}}'],
    ['a delay of 10^9', '{"backoff":{"type":"fixed","delayMs":1000000000}}'],
    ['not JSON', '{maxAttempts:3}'],
    ['an unknown field', '{"retries":3}'],
    ['a deadline beyond retention', '{"deadlineSeconds":99999999}'],
  ])('rejects %s with InvalidRetryStateError', (_label, raw) => {
    expect(() => parsePolicyOverride(raw)).toThrow(InvalidRetryStateError);
  });
});

describe('x-dead-letter codec', () => {
  it('round-trips every field of the contract', () => {
    const record = {
      reason: 'max-attempts' as const,
      errorType: 'TEMPORARY',
      error: 'upstream 503',
      attempts: 5,
      firstReceivedAt: NOW - 1000,
      deadLetteredAt: NOW,
      sourceQueue: 'http://127.0.0.1:4566/000000000000/jobs',
      originalMessageId: 'abc',
    };
    expect(Object.keys(JSON.parse(encodeDeadLetterRecord(record)))).toEqual([
      'reason',
      'errorType',
      'error',
      'attempts',
      'firstReceivedAt',
      'deadLetteredAt',
      'sourceQueue',
      'originalMessageId',
    ]);
    expect(parseDeadLetterRecord(encodeDeadLetterRecord(record))).toEqual(record);
  });

  it('rejects an unknown reason', () => {
    expect(() => parseDeadLetterRecord('{"reason":"bored"}')).toThrow(InvalidRetryStateError);
  });
});
