import { Writable } from 'node:stream';
import { classifyFailure } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { createWorkerLogger } from './logger.js';

const SECRETS = ['hunter2', 'sk_live_51Hx', 'eyJhbGciOiJIUzI1NiJ9', 'p4ssw0rd', '4111111111111111'];

/** The worker's logger with its default configuration, writing into a string. */
function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = createWorkerLogger(loadWorkerConfig({}), stream);
  return { logger, output: () => text };
}

describe('the worker log, with the default redaction', () => {
  it('never shows a secret from a message body or a URL in the error text the engine logs', () => {
    const { logger, output } = capture();
    const thrown = new Error(
      'charge declined for {"card":"4111111111111111","password":"hunter2"} at https://ann:p4ssw0rd@pay.example.com/v1?api_key=sk_live_51Hx',
    );
    const failure = classifyFailure(thrown, Date.now());
    // What the engine writes when a handler fails and when it dead-letters.
    logger.warn({ messageId: 'm1', attempt: 1, errorType: failure.errorType, error: failure.message }, 'handler failed; retrying');
    logger.error({ messageId: 'm1', deadLetter: { reason: 'non-retryable', error: failure.message } }, 'dead-lettered');
    for (const secret of SECRETS) expect(output()).not.toContain(secret);
    expect(output()).toContain('charge declined for');
  });

  it("never shows an HTTP client error's request headers, auth or body, nor a token in its message", () => {
    const { logger, output } = capture();
    const err = Object.assign(new Error('Request failed: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x.y'), {
      config: {
        url: 'https://pay.example.com',
        headers: { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.x.y', 'x-api-key': 'sk_live_51Hx' },
        data: '{"password":"hunter2"}',
      },
      response: { status: 500, headers: { 'set-cookie': 'session=p4ssw0rd' } },
    });
    logger.error({ messageId: 'm1', err }, 'unexpected error while processing; the message will reappear');
    for (const secret of SECRETS) expect(output()).not.toContain(secret);
    const line = JSON.parse(output()) as { err: { config: { url: string; headers: string }; response: { status: number } } };
    expect(line.err.config.headers).toBe('[redacted]');
    expect(line.err.response.status).toBe(500);
  });
});
