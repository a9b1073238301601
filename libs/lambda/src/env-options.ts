import { MissingPeerError, workerOptionsFromEnv, type WorkerEnvOptions } from '@requeue/sqs/env';
import type { ReceivedOptions } from '@requeue/sqs/received';

type Env = Readonly<Record<string, string | undefined>>;
type SecretsManagerSdk = Pick<typeof import('@aws-sdk/client-secrets-manager'), 'SecretsManagerClient' | 'GetSecretValueCommand'>;
/** Loads the Secrets Manager client: the optional peer, or a test's stand-in. */
type SecretsManagerLoader = () => Promise<SecretsManagerSdk>;

/** What the environment `QueueWorkerFunction` sets configures, as `sqsHandler` options; what the code passes wins. */
export type EnvConfigured = Pick<
  ReceivedOptions,
  'retryPolicy' | 'handlerTimeoutMs' | 'idempotency' | 'metrics' | 'retryStateKeys' | 'tracing' | 'visibilityTimeoutSeconds'
>;

/**
 * The options the environment sets (`RETRY_POLICY`, `METRICS_NAMESPACE`,
 * `WORKER_IDEMPOTENCY`, `WORKER_RETRY_STATE_KEYS`…), read as the container worker reads
 * them, when `WORKER_QUEUE_URL` and `WORKER_DLQ_URL` are both set; none otherwise.
 */
export async function optionsFromEnv(
  env: Env,
  loadSecretsManager: SecretsManagerLoader = () => import('@aws-sdk/client-secrets-manager'),
): Promise<EnvConfigured> {
  if (!env.WORKER_QUEUE_URL || !env.WORKER_DLQ_URL) return {};
  const all: WorkerEnvOptions = workerOptionsFromEnv(env);
  const { retryPolicy, handlerTimeoutMs, idempotency, metrics, tracing, visibilityTimeoutSeconds } = all;
  const retryStateKeys =
    all.retryStateKeys ?? (env.WORKER_RETRY_STATE_KEYS_SECRET ? await keysFromSecret(env.WORKER_RETRY_STATE_KEYS_SECRET, loadSecretsManager) : undefined);
  const picked = { retryPolicy, handlerTimeoutMs, idempotency, metrics, tracing, visibilityTimeoutSeconds, retryStateKeys };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as EnvConfigured;
}

/**
 * The `x-retry` keys every invocation shares, read once per cold start from Secrets
 * Manager: comma-separated, the newest first. The client is the Lambda runtime's own AWS
 * SDK unless the bundle brings one.
 */
async function keysFromSecret(secretId: string, load: SecretsManagerLoader): Promise<string[]> {
  let sdk: SecretsManagerSdk;
  try {
    sdk = await load();
  } catch (cause) {
    throw new MissingPeerError(['@aws-sdk/client-secrets-manager'], 'WORKER_RETRY_STATE_KEYS_SECRET', { cause });
  }
  const client = new sdk.SecretsManagerClient({});
  try {
    const { SecretString } = await client.send(new sdk.GetSecretValueCommand({ SecretId: secretId }));
    return (SecretString ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean);
  } finally {
    client.destroy();
  }
}
