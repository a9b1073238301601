import { RetryStateSigner } from '@requeue/retry/engine';
import { WorkerConfigError } from './config-error.js';

/**
 * WORKER_RETRY_STATE_KEYS: the keys of the HMAC on `x-retry`, comma-separated, the first
 * signing and all verifying (a rolling rotation: `old,new`, then `new,old`, then `new`; docs/security.md). The CDK stack sets it from a Secrets
 * Manager secret. Required in production, where a fleet must share it; elsewhere the
 * worker makes a key of its own process.
 */
export function retryStateKeys(env: Readonly<Record<string, string | undefined>>, production: boolean): readonly string[] | undefined {
  const raw = env.WORKER_RETRY_STATE_KEYS?.trim();
  if (!raw) {
    if (!production) return undefined;
    throw new WorkerConfigError(
      'WORKER_RETRY_STATE_KEYS',
      'is not set: in production every worker of a queue needs the same secret key for x-retry (the CDK stack sets it from a secret; ' +
        'otherwise generate one with: openssl rand -base64 48)',
    );
  }
  const keys = raw.split(',').map((key) => key.trim());
  try {
    new RetryStateSigner(keys);
  } catch (cause) {
    throw new WorkerConfigError('WORKER_RETRY_STATE_KEYS', (cause as { problem: string }).problem, { cause });
  }
  return keys;
}
