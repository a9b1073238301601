import { Inject, Injectable } from '@nestjs/common';
import { SqsHandler } from '@requeue/nest';
import { ErrorType, NonRetryableError, parseRetryAfter, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import type { WorkerConfig } from '../config.js';
import { APP_CONFIG } from '../tokens.js';
import { EgressPolicy } from './egress.js';
import { postJson } from './http-post.js';

/** Bytes of a response read at most: the status and headers decide; the body is discarded. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs the payload as JSON (docs/contracts.md, 4.2): to `url` from
 * `{ "url", "payload" }` in the body, or to WEBHOOK_URL with the whole body as the
 * payload. The `Idempotency-Key` header is the original message id, stable across
 * retries, so the receiver can drop duplicates. Internal addresses are refused unless
 * WEBHOOK_ALLOW_HOSTS allows them, and redirects are not followed (docs/security.md).
 */
@Injectable()
export class WebhookHandler {
  private readonly egress: EgressPolicy;

  constructor(@Inject(APP_CONFIG) private readonly config: WorkerConfig) {
    this.egress = new EgressPolicy(config.webhookAllowHosts);
  }

  @SqsHandler('webhook')
  async handle(message: WorkerMessage): Promise<void> {
    const { url, payload } = webhookTarget(message.body, this.config.webhookUrl);
    this.egress.checkLiteral(url);
    const response = await postJson(url, serialised(payload), {
      headers: { 'idempotency-key': message.idempotencyKey },
      signal: message.signal,
      timeoutMs: this.config.webhookTimeoutMs,
      lookup: this.egress.lookupFor(url),
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    classifyResponse(response.status, response.headers['retry-after'], url);
  }
}

/**
 * Where the message goes. With WEBHOOK_URL set, the target's origin (scheme, host and
 * port) is pinned: a body's `url` may change only the path and query.
 */
function webhookTarget(body: unknown, webhookUrl: string | undefined): { url: URL; payload: unknown } {
  if (typeof body === 'object' && body !== null && 'url' in body) {
    const { url, payload } = body as { url: unknown; payload?: unknown };
    const target = parseTarget(url);
    const pinned = webhookUrl === undefined ? undefined : new URL(webhookUrl);
    if (pinned && target.origin !== pinned.origin) {
      throw new NonRetryableError(`validation: "url" may change only the path and query of WEBHOOK_URL (${pinned.origin}), got ${target.origin}`);
    }
    return { url: target, payload: payload ?? null };
  }
  if (!webhookUrl) throw new NonRetryableError('validation: the body has no "url" and WEBHOOK_URL is not set');
  return { url: new URL(webhookUrl), payload: body };
}

function parseTarget(url: unknown): URL {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new NonRetryableError(`validation: "url" must be an http(s) URL, got ${typeof url === 'string' ? 'an invalid one' : typeof url}`);
  }
  const target = new URL(url);
  // Credentials in a URL end up in logs and dead letters; a receiver that needs them takes a header.
  if (target.username || target.password) throw new NonRetryableError('validation: "url" must not carry credentials (user:password@)');
  return target;
}

/** A payload JSON cannot hold (a BigInt, a cycle, nesting past the stack) fails the same way on every retry. */
function serialised(payload: unknown): string {
  try {
    return JSON.stringify(payload) ?? 'null';
  } catch (cause) {
    throw new NonRetryableError(`validation: the payload cannot be serialised as JSON (${(cause as Error).message})`, { cause });
  }
}

/**
 * The dependency a webhook message calls: its target's host (and port). A body with no
 * usable URL, or a target the egress policy refuses (it is never called), gets the
 * queue's key: a publisher naming a new refused host per message makes no state for it.
 */
export function webhookDependencyKey(webhookUrl: string | undefined, egress: EgressPolicy): (message: Pick<WorkerMessage, 'body'>) => string | undefined {
  return (message) => {
    try {
      const { url } = webhookTarget(message.body, webhookUrl);
      return egress.refusesLiteral(url) ? undefined : url.host;
    } catch {
      return undefined;
    }
  };
}

/**
 * 2xx: done. 429: rate limit with Retry-After. 408, 425, 5xx: transient. A redirect is
 * not followed: permanent, since the target would have to change. Other 4xx: permanent.
 * The error text names the target without its query string, which often carries keys.
 */
function classifyResponse(status: number, retryAfter: string | undefined, url: URL): void {
  if (status >= 200 && status < 300) return;
  const message = `webhook ${url.origin}${url.pathname} answered ${status}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(retryAfter, Date.now());
    throw new RetryableError(message, { errorType: ErrorType.RATE_LIMIT, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (status === 408 || status === 425 || status >= 500) throw new RetryableError(message, { errorType: ErrorType.TEMPORARY });
  if (status >= 300 && status < 400) throw new NonRetryableError(`${message}: redirects are not followed; point the message at the final URL`);
  throw new NonRetryableError(message);
}
