import { simulate } from './common.js';

/**
 * The seed reference's handler: the simulation workload (attempt = the body's own
 * retryCount + 1, as the seed tracks it), or with BENCH_WEBHOOK_URL a POST of the body to
 * it, failing on any non-2xx the way the seed's handler would (by message text).
 */
export async function callHandler(rawBody: string): Promise<void> {
  const url = process.env.BENCH_WEBHOOK_URL;
  if (!url) {
    const retryCount = (JSON.parse(rawBody) as { retryCount?: number }).retryCount ?? 0;
    return simulate(rawBody, retryCount + 1);
  }
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rawBody, signal: AbortSignal.timeout(10_000) });
  if (response.status === 429) throw new Error('rate limit exceeded (429)');
  if (response.status >= 500) throw new Error(`temporary upstream failure (${response.status})`);
  if (!response.ok) throw new Error(`request rejected (${response.status})`);
}
