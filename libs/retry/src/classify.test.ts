import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyFailure, type Classification } from './classify.js';
import { NonRetryableError, RetryableError, UnrecoverableError } from './errors.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const classify = (thrown: unknown) => classifyFailure(thrown, NOW);
const httpError = (props: Record<string, unknown>, message = 'request failed') => Object.assign(new Error(message), props);

function expectRetryable(result: Classification, errorType: string) {
  expect(result).toMatchObject({ retryable: true, errorType });
}

describe('classifyFailure', () => {
  it('keeps the type and Retry-After a RetryableError carries', () => {
    expect(classify(new RetryableError('slow down', { errorType: 'RATE_LIMIT', retryAfterMs: 7000 }))).toEqual({
      retryable: true,
      errorType: 'RATE_LIMIT',
      message: 'slow down',
      retryAfterMs: 7000,
      scope: 'systemic',
    });
    expectRetryable(classify(new RetryableError('custom', { errorType: 'MY_TYPE' })), 'MY_TYPE');
  });

  it('scopes rate limits, quotas and unavailability as systemic, everything else retryable as the message', () => {
    const scopeOf = (thrown: unknown) => {
      const classification = classify(thrown);
      return classification.retryable ? classification.scope : 'not retryable';
    };
    expect(scopeOf(Object.assign(new Error('x'), { status: 429 }))).toBe('systemic');
    expect(scopeOf(Object.assign(new Error('x'), { status: 503 }))).toBe('systemic');
    expect(scopeOf(new Error('monthly quota exceeded'))).toBe('systemic');
    expect(scopeOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('systemic');
    expect(scopeOf(new Error('something odd happened'))).toBe('message');
    expect(scopeOf(Object.assign(new Error('x'), { status: 501 }))).toBe('message');
    expect(scopeOf(new Error('user not found'))).toBe('not retryable');
    // The thrower knows best: a 503 caused by this one payload is the message's.
    expect(scopeOf(new RetryableError('bad payload crashes them', { errorType: 'TEMPORARY', scope: 'message' }))).toBe('message');
    // A user rule that names no scope gets its error type's.
    const ruled = classifyFailure(new Error('x'), 0, { rules: [() => ({ retryable: true, errorType: 'RATE_LIMIT', message: 'x' })] });
    expect(ruled.retryable && ruled.scope).toBe('systemic');
  });

  it('never retries NonRetryableError, UnrecoverableError, or a subclass of any class named UnrecoverableError', () => {
    class PoisonPill extends UnrecoverableError {}
    class UnrecoverableErrorFromElsewhere extends Error {}
    Object.defineProperty(UnrecoverableErrorFromElsewhere, 'name', { value: 'UnrecoverableError' });
    class Subclass extends UnrecoverableErrorFromElsewhere {}
    for (const thrown of [new NonRetryableError('bad'), new UnrecoverableError('bad'), new PoisonPill('bad'), new Subclass('bad')]) {
      expect(classify(thrown)).toMatchObject({ retryable: false, reason: 'non-retryable' });
    }
  });

  it.each([
    ['status', 503],
    ['statusCode', 502],
  ])('reads the HTTP status from %s', (key, status) => {
    expectRetryable(classify(httpError({ [key]: status })), 'TEMPORARY');
  });

  it('reads the HTTP status from $metadata.httpStatusCode', () => {
    expectRetryable(classify(httpError({ $metadata: { httpStatusCode: 504 } })), 'TEMPORARY');
  });

  it.each([408, 425, 500, 502, 503, 504])('treats HTTP %i as TEMPORARY', (status) => {
    expectRetryable(classify(httpError({ status })), 'TEMPORARY');
  });

  it.each([400, 401, 403, 404, 409, 410, 422, 418])('never retries HTTP %i', (status) => {
    expect(classify(httpError({ status }))).toMatchObject({ retryable: false, reason: 'non-retryable' });
  });

  it('treats 429 as RATE_LIMIT and parses Retry-After in seconds', () => {
    const result = classify(httpError({ status: 429, headers: { 'retry-after': '12' } }));
    expect(result).toMatchObject({ retryable: true, errorType: 'RATE_LIMIT', retryAfterMs: 12_000 });
  });

  it('parses Retry-After as an HTTP-date, from a fetch Headers object', () => {
    const at = new Date(NOW + 30_000).toUTCString();
    const result = classify(httpError({ response: { status: 429, headers: new Headers({ 'Retry-After': at }) } }));
    expect(result).toMatchObject({ retryable: true, errorType: 'RATE_LIMIT', retryAfterMs: 30_000 });
  });

  it('treats AWS throttling as RATE_LIMIT even though it arrives as HTTP 400', () => {
    const throttled = httpError({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    throttled.name = 'ThrottlingException';
    expectRetryable(classify(throttled), 'RATE_LIMIT');
    expectRetryable(classify(httpError({ $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } })), 'RATE_LIMIT');
    expectRetryable(classify(httpError({ $retryable: {}, $metadata: { httpStatusCode: 500 } })), 'TEMPORARY');
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'])(
    'treats network code %s as TEMPORARY, also when it is the cause of a fetch failure',
    (code) => {
      expectRetryable(classify(httpError({ code })), 'TEMPORARY');
      expectRetryable(classify(new TypeError('fetch failed', { cause: httpError({ code }) })), 'TEMPORARY');
    },
  );

  it('treats aborts and timeouts as TEMPORARY', async () => {
    const timeout = AbortSignal.timeout(1);
    await new Promise((resolve) => timeout.addEventListener('abort', resolve));
    expectRetryable(classify(timeout.reason), 'TEMPORARY');
    const controller = new AbortController();
    controller.abort();
    expectRetryable(classify(controller.signal.reason), 'TEMPORARY');
  });

  it.each([
    ['a string', 'boom'],
    ['null', null],
    ['undefined', undefined],
    ['a plain object', { status: 503 }],
    ['a number', 42],
  ])('calls a thrown %s a handler bug', (_label, thrown) => {
    expect(classify(thrown)).toMatchObject({ retryable: false, reason: 'handler-bug', errorType: 'HANDLER_BUG' });
  });

  it('survives errors whose getters throw', () => {
    const hostile = new Error('x');
    for (const key of ['message', 'status', 'name', 'code', 'cause']) {
      Object.defineProperty(hostile, key, {
        get: () => {
          throw new Error(`getter ${key}`);
        },
      });
    }
    expect(() => classify(hostile)).not.toThrow();
    const proxy = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        },
      },
    );
    expect(classify(proxy)).toMatchObject({ retryable: false });
  });

  it.each([
    ['Rate limit exceeded', 'RATE_LIMIT'],
    ['HTTP 429 from upstream', 'RATE_LIMIT'],
    ['monthly quota exceeded', 'QUOTA_EXCEEDED'],
    ['request timed out', 'TEMPORARY'],
    ['service temporarily unavailable', 'TEMPORARY'],
    ['something odd happened', 'DEFAULT'],
  ])('falls back to the message text: %j is %s', (message, errorType) => {
    expectRetryable(classify(new Error(message)), errorType);
  });

  it.each(['validation error: email', 'user not found', 'Unauthorized', 'Forbidden', 'got 404'])(
    'falls back to the message text: %j is not retryable',
    (message) => {
      expect(classify(new Error(message))).toMatchObject({ retryable: false, reason: 'non-retryable' });
    },
  );

  it('consults user rules first and skips a rule that throws', () => {
    const result = classifyFailure(httpError({ status: 404 }), NOW, {
      rules: [
        () => {
          throw new Error('broken rule');
        },
        (thrown) => ((thrown as { status?: number }).status === 404 ? { retryable: true, errorType: 'EVENTUALLY_CONSISTENT', message: 'not yet' } : undefined),
      ],
    });
    expectRetryable(result, 'EVENTUALLY_CONSISTENT');
  });

  it('lets the status tables be configured', () => {
    const options = { retryableStatuses: { 418: 'TEAPOT' }, nonRetryableStatuses: [503] };
    expectRetryable(classifyFailure(httpError({ status: 418 }), NOW, options), 'TEAPOT');
    expect(classifyFailure(httpError({ status: 503 }), NOW, options)).toMatchObject({ retryable: false });
  });

  it('bounds the recorded error text to 256 characters', () => {
    expect(classify(new Error('x'.repeat(5000))).message).toHaveLength(256);
  });

  it('is total: any value classifies without throwing', () => {
    fc.assert(
      fc.property(fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withNullPrototype: true }), (thrown) => {
        const result = classify(thrown);
        expect(typeof result.retryable).toBe('boolean');
        expect(result.message.length).toBeLessThanOrEqual(256);
      }),
    );
  });
});
