import type { SQSHandler } from 'aws-lambda';
import { sqsHandler } from '@requeue/lambda';
import { NonRetryableError, RetryableError } from '@requeue/retry';

/** A webhook delivery job. */
interface Delivery {
  url: string;
  payload: unknown;
}

/**
 * Delivers each job's payload to its webhook. A 5xx or 429 retries with requeue's
 * per-error-type backoff; any other 4xx goes to the DLQ with its reason. The queue and DLQ
 * come from WORKER_QUEUE_URL and WORKER_DLQ_URL (QueueWorkerFunction sets them).
 */
export const handler: SQSHandler = sqsHandler<Delivery>(async (message) => {
  const { url, payload } = message.body;
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(payload), headers: { 'content-type': 'application/json' }, signal: message.signal });
  if (response.status === 429 || response.status >= 500)
    throw new RetryableError(`${url} answered ${response.status}`, { errorType: response.status === 429 ? 'RATE_LIMIT' : 'HTTP_5XX' });
  if (!response.ok) throw new NonRetryableError(`${url} answered ${response.status}`, { errorType: 'HTTP_4XX' });
});
