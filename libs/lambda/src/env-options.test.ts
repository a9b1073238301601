import { describe, expect, it } from 'vitest';
import { optionsFromEnv } from './env-options.js';

const asked: string[] = [];
/** Secrets Manager as the Lambda runtime's SDK answers, for the secret QueueWorkerFunction names. */
const secretsManager = async () =>
  ({
    SecretsManagerClient: class {
      async send(command: { input: { SecretId: string } }) {
        asked.push(command.input.SecretId);
        return { SecretString: ' new-key-0123456789abcdef0123456789abcdef, old-key-0123456789abcdef0123456789abcdef ' };
      }
      destroy() {}
    },
    GetSecretValueCommand: class {
      constructor(readonly input: { SecretId: string }) {}
    },
  }) as unknown as Awaited<ReturnType<NonNullable<Parameters<typeof optionsFromEnv>[1]>>>;

const QUEUES = {
  WORKER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/hooks',
  WORKER_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/hooks-dlq',
};

describe("sqsHandler's options from the environment", () => {
  it('reads nothing unless both queue URLs are set', async () => {
    expect(await optionsFromEnv({ RETRY_POLICY: '{"maxAttempts":2}' })).toEqual({});
  });

  it('says what to install when the secret cannot be read for want of the SDK', async () => {
    const missing = async () => {
      throw Object.assign(new Error("Cannot find package '@aws-sdk/client-secrets-manager'"), { code: 'ERR_MODULE_NOT_FOUND' });
    };
    await expect(optionsFromEnv({ ...QUEUES, WORKER_RETRY_STATE_KEYS_SECRET: 'keys' }, missing)).rejects.toThrow(
      /WORKER_RETRY_STATE_KEYS_SECRET needs @aws-sdk\/client-secrets-manager.*npm install @aws-sdk\/client-secrets-manager/,
    );
  });

  it('reads the policy and the namespace as the worker does, and the x-retry keys from the secret QueueWorkerFunction names', async () => {
    const options = await optionsFromEnv(
      {
        ...QUEUES,
        RETRY_POLICY: '{"maxAttempts":2}',
        METRICS_NAMESPACE: 'Hooks',
        WORKER_RETRY_STATE_KEYS_SECRET: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:keys',
      },
      secretsManager,
    );
    expect(asked).toEqual(['arn:aws:secretsmanager:eu-west-1:123456789012:secret:keys']);
    expect(options.retryStateKeys).toEqual(['new-key-0123456789abcdef0123456789abcdef', 'old-key-0123456789abcdef0123456789abcdef']);
    expect(options.retryPolicy?.config.maxAttempts).toBe(2);
    expect(options.metrics).toBeDefined();
  });

  it('takes WORKER_RETRY_STATE_KEYS over the secret, without reading it', async () => {
    asked.length = 0;
    const options = await optionsFromEnv(
      { ...QUEUES, WORKER_RETRY_STATE_KEYS: 'plain-key-0123456789abcdef0123456789abcdef', WORKER_RETRY_STATE_KEYS_SECRET: 'keys' },
      secretsManager,
    );
    expect(options.retryStateKeys).toEqual(['plain-key-0123456789abcdef0123456789abcdef']);
    expect(asked).toEqual([]);
  });
});
