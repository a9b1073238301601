import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify.js';
import { createEnginePolicy } from './decide.js';
import { freshRetryState } from './retry-state.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const classify = (thrown: unknown, codeBugErrors?: readonly string[] | false) =>
  classifyFailure(thrown, NOW, codeBugErrors === undefined ? {} : { codeBugErrors });
const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

class ValidationBug extends TypeError {}

describe('a bug in the handler is dead-lettered on the same delivery', () => {
  it.each([
    ['TypeError', () => (null as unknown as { id: string }).id],
    ['ReferenceError', () => new Function('return undefinedVariable')()],
    ['SyntaxError', () => JSON.parse('{not json')],
    ['RangeError', () => new Array(-1)],
    ['URIError', () => decodeURIComponent('%')],
    [
      'EvalError',
      () => {
        throw new EvalError('eval');
      },
    ],
  ])('%s is a handler-bug, not a retry', (name, bug) => {
    let thrown: unknown;
    try {
      bug();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(classify(thrown)).toMatchObject({ retryable: false, reason: 'handler-bug', errorType: 'HANDLER_BUG' });
    expect(classify(thrown).message.startsWith(`${name} in the handler: `)).toBe(true);
  });

  it('counts a subclass of TypeError as a bug', () => {
    expect(classify(new ValidationBug('bad'))).toMatchObject({ reason: 'handler-bug' });
  });

  it("keeps fetch's network failures transient: TypeError('fetch failed') with a network cause, or none", () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(classify(new TypeError('fetch failed', { cause: networkError(code) }))).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
    }
    expect(classify(new TypeError('fetch failed'))).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
    expect(classify(Object.assign(new TypeError('socket hang up'), { code: 'ECONNRESET' }))).toMatchObject({ retryable: true });
  });

  it('is configurable both ways: false retries bugs, a list names the classes that are bugs', () => {
    expect(classify(new TypeError('x is not a function'), false)).toMatchObject({ retryable: true, errorType: 'DEFAULT' });
    class AssertionError extends Error {}
    expect(classify(new AssertionError('expected 1'), ['AssertionError'])).toMatchObject({ reason: 'handler-bug' });
    expect(classify(new RangeError('too big'), ['AssertionError'])).toMatchObject({ retryable: true });
  });

  it('reaches the policy: RETRY_POLICY JSON can turn it off, and the shipped preset dead-letters at once', () => {
    const state = freshRetryState('m', NOW);
    expect(createEnginePolicy().decide(state, new TypeError('boom'), NOW, () => 0.5)).toMatchObject({ action: 'dead-letter', reason: 'handler-bug' });
    expect(createEnginePolicy({ codeBugErrors: false }).decide(state, new TypeError('boom'), NOW, () => 0.5)).toMatchObject({ action: 'retry' });
  });
});
