import { Inject, Injectable } from '@nestjs/common';
import { SqsHandler } from '@requeue/nest';
import { ErrorType, NonRetryableError, parseRetryAfter, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { APP_CONFIG } from '../tokens.js';
import type { WorkerConfig } from '../config.js';

/**
 * POSTs the payload as JSON (DESIGN.md 3.5): to `url` from `{ "url", "payload" }` in the
 * body, or to WEBHOOK_URL with the whole body as the payload. The `Idempotency-Key`
 * header is the original message id, stable across retries, so the receiver can drop
 * duplicates.
 */
@Injectable()
export class WebhookHandler {
  constructor(@Inject(APP_CONFIG) private readonly config: WorkerConfig) {}

  @SqsHandler('webhook')
  async handle(message: WorkerMessage): Promise<void> {
    const { url, payload } = webhookTarget(message.body, this.config.webhookUrl);
    const signal = AbortSignal.any([message.signal, AbortSignal.timeout(this.config.webhookTimeoutMs)]);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': message.idempotencyKey },
      body: JSON.stringify(payload),
      signal,
    });
    // Drain the body so the connection returns to the pool.
    await response.arrayBuffer().catch(() => undefined);
    classifyResponse(response, url);
  }

}

function webhookTarget(body: unknown, webhookUrl: string | undefined): { url: string; payload: unknown } {
  if (typeof body === 'object' && body !== null && 'url' in body) {
    const { url, payload } = body as { url: unknown; payload?: unknown };
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new NonRetryableError(`validation: "url" must be an http(s) URL, got ${JSON.stringify(url)}`);
    return { url, payload: payload ?? null };
  }
  if (!webhookUrl) throw new NonRetryableError('validation: the body has no "url" and WEBHOOK_URL is not set');
  return { url: webhookUrl, payload: body };
}

/** The dependency a webhook message calls: its target's host (and port). A body with no usable URL gets the queue's key. */
export function webhookDependencyKey(webhookUrl: string | undefined): (message: Pick<WorkerMessage, 'body'>) => string | undefined {
  return (message) => {
    try {
      return new URL(webhookTarget(message.body, webhookUrl).url).host;
    } catch {
      return undefined;
    }
  };
}

/** 2xx: done. 429: rate limit with Retry-After. 408, 425, 5xx: transient. Other 4xx: permanent. */
export function classifyResponse(response: Response, url: string): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const message = `webhook ${url} answered ${status}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now());
    throw new RetryableError(message, { errorType: ErrorType.RATE_LIMIT, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (status === 408 || status === 425 || status >= 500) throw new RetryableError(message, { errorType: ErrorType.TEMPORARY });
  throw new NonRetryableError(message);
}
