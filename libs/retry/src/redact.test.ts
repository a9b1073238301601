import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify.js';
import { redactSecrets, redactUrlCredentials } from './redact.js';

describe('redactSecrets', () => {
  it.each([
    ['webhook https://user:hunter2@api.example.com/hook answered 500', 'hunter2'],
    ['webhook https://api.example.com/hook?api_key=sk_live_123&x=1 answered 500', 'sk_live_123'],
    ['upstream said: Authorization: Bearer eyJhbGciOi.payload.sig', 'eyJhbGciOi'],
    ['declined {"card":"4111111111111111","cvv":"123"}', '4111111111111111'],
    ['login failed for password=hunter2 user=ann', 'hunter2'],
    ["config {token: 'tok_abc'}", 'tok_abc'],
    ['header x-api-key: k-98765', 'k-98765'],
    ['connect failed with db_password=s3cr3t', 's3cr3t'],
    ['WORKER_IDEMPOTENCY: must be off, redis://host:port or dynamodb:<table>, got "redis//:s3cr3t@cache:6379"', 's3cr3t'],
  ])('removes the secret from %j', (text, secret) => {
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain(secret);
    expect(redacted).toContain('[redacted]');
  });

  it('leaves ordinary error text as it is', () => {
    for (const text of [
      'webhook https://api.example.com/hook answered 503',
      'simulated transient failure',
      'TypeError in the handler: x is not a function',
      'shipping to japan: 5 parcels',
      'tokens: 3 left',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('is applied to every classified failure, so x-retry and x-dead-letter never carry the secret', () => {
    const failure = classifyFailure(new Error('charge failed: {"password":"hunter2"} via https://u:p4ss@pay.example.com/?key=abc'), Date.now());
    expect(failure.message).not.toMatch(/hunter2|p4ss|key=abc/);
  });
});

describe('redactUrlCredentials', () => {
  it('hides the user and password of every URL in a line and leaves the rest of it as it was', () => {
    const line = 'queue https://ops:hunter2@sqs.eu-west-1.amazonaws.com/1/jobs?x=1 and http://token@127.0.0.1:4566/000/dlq, not me@example.com';
    const expected = 'queue https://[redacted]@sqs.eu-west-1.amazonaws.com/1/jobs?x=1 and http://[redacted]@127.0.0.1:4566/000/dlq, not me@example.com';
    expect(redactUrlCredentials(line)).toBe(expected);
    expect(redactUrlCredentials('https://sqs.us-east-1.amazonaws.com/1/q')).toBe('https://sqs.us-east-1.amazonaws.com/1/q');
  });
});
