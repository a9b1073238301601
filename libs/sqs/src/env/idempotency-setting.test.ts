import { describe, expect, it } from 'vitest';
import { WorkerConfigError } from './config-error.js';
import { idempotencySetting, keyAt } from './idempotency-setting.js';

describe('WORKER_IDEMPOTENCY and WORKER_IDEMPOTENCY_KEY', () => {
  it('is off by default', () => {
    expect(idempotencySetting({})).toEqual({ store: 'off' });
  });

  it('reads a Redis URL and a DynamoDB table, keyed by the message unless told', () => {
    expect(idempotencySetting({ WORKER_IDEMPOTENCY: 'redis://cache:6379' })).toEqual({
      store: 'redis',
      url: 'redis://cache:6379',
      key: { from: 'message' },
      validatePayload: false,
    });
    expect(
      idempotencySetting({
        WORKER_IDEMPOTENCY: 'dynamodb:requeue-idempotency',
        WORKER_IDEMPOTENCY_KEY: 'body.order.id',
        WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD: 'on',
      }),
    ).toEqual({
      store: 'dynamodb',
      tableName: 'requeue-idempotency',
      key: { from: 'body', path: ['order', 'id'] },
      validatePayload: true,
    });
  });

  it.each([
    [{ WORKER_IDEMPOTENCY: 'memcached://x:1' }, 'WORKER_IDEMPOTENCY: must be off, redis://host:port or dynamodb:<table>'],
    [{ WORKER_IDEMPOTENCY: 'dynamodb:a' }, 'WORKER_IDEMPOTENCY: names a DynamoDB table that cannot exist'],
    [{ WORKER_IDEMPOTENCY: 'redis://x:1', WORKER_IDEMPOTENCY_KEY: 'id' }, 'WORKER_IDEMPOTENCY_KEY: must be message or a path into the body'],
    [{ WORKER_IDEMPOTENCY: 'redis://x:1', WORKER_IDEMPOTENCY_KEY: 'body..id' }, 'WORKER_IDEMPOTENCY_KEY: must be message or a path into the body'],
    [{ WORKER_IDEMPOTENCY: 'redis://x:1', WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD: 'yes' }, 'WORKER_IDEMPOTENCY_VALIDATE_PAYLOAD: must be on or off'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => idempotencySetting(env)).toThrow(WorkerConfigError);
    expect(() => idempotencySetting(env)).toThrow(message);
  });

  it('takes a string or number key from the body, and refuses a body without one', () => {
    const message = (body: unknown) => ({ body, idempotencyKey: 'm-1' });
    expect(keyAt({ from: 'message' }, message({}))).toBe('m-1');
    expect(keyAt({ from: 'body', path: ['order', 'id'] }, message({ order: { id: 42 } }))).toBe('42');
    expect(() => keyAt({ from: 'body', path: ['id'] }, message({ id: '' }))).toThrow('the body has no idempotency key at body.id');
    expect(() => keyAt({ from: 'body', path: ['id'] }, message('plain text'))).toThrow('the body has no idempotency key at body.id');
  });
});
