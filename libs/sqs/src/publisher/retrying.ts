import { cappedExponentialMs } from '@requeue/retry/engine';

/** Codes SQS and SNS give a call or a batch entry that was throttled or failed on their side. */
const RETRYABLE_CODES = new Set([
  'ThrottlingException',
  'Throttling',
  'Throttled',
  'RequestThrottled',
  'KmsThrottled',
  'KMSThrottlingException',
  'ServiceUnavailable',
  'InternalError',
  'InternalFailure',
]);

/** Whether a failed entry or call is worth sending again: a throttle or a fault on AWS's side. */
export function isRetryable(code: string, senderFault: boolean): boolean {
  return RETRYABLE_CODES.has(code) || !senderFault;
}

export interface Backoff {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Exponential backoff with full jitter before retry `retry` (1-based). */
export function backoffDelay(backoff: Backoff, retry: number): number {
  return Math.round(backoff.random() * cappedExponentialMs(backoff.baseDelayMs, 2, retry - 1, backoff.maxDelayMs));
}

/** The code an SDK error carries: its name, as the AWS SDK v3 sets it. */
export function errorCode(error: unknown): { code: string; message: string; senderFault: boolean } {
  const e = error as { name?: string; message?: string; $fault?: string } | null;
  return { code: e?.name ?? 'Error', message: e?.message ?? String(error), senderFault: e?.$fault === 'client' };
}
