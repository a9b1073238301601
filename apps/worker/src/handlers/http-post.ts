import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

export interface PostOptions {
  headers: Record<string, string>;
  /** The message's signal: its handler timeout, or shutdown. */
  signal: AbortSignal;
  /** The whole exchange's deadline, in ms: past it the request is destroyed with a `TimeoutError`. */
  timeoutMs: number;
  /** Resolves the host and checks what it resolves to; the connection uses its answer. */
  lookup: LookupFunction;
  /** Response bytes read before the rest is discarded: only the status and headers matter. */
  maxResponseBytes: number;
}

export interface PostResult {
  status: number;
  headers: IncomingHttpHeaders;
}

/**
 * Agents of our own, never the global ones: with NODE_USE_ENV_PROXY, Node gives its global
 * agents the HTTP(S)_PROXY from the environment, and a request through a proxy connects to
 * the proxy, which then reaches whatever the publisher named: the egress check of the
 * address connected to would be bypassed. An agent made without `proxyEnv` never proxies.
 */
const HTTP_AGENT = new HttpAgent({ keepAlive: true });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true });

/**
 * One POST with node:http(s), not `fetch`: it takes a `lookup`, so the address that was
 * checked is the address connected to, it never follows a redirect, and a response body
 * is read only up to a small cap (a 2 GiB answer would otherwise sit in memory, once per
 * message in flight).
 */
export function postJson(url: URL, body: string, options: PostOptions): Promise<PostResult> {
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      signal: options.signal,
      lookup: options.lookup,
      agent: https ? HTTPS_AGENT : HTTP_AGENT,
    });
    // A timer per request, cleared when it ends: `AbortSignal.any` over the message's signal
    // and an `AbortSignal.timeout` cost 17-27 µs of CPU a message, against 1-2 µs.
    const deadline = setTimeout(() => request.destroy(timedOut(url, options.timeoutMs)), options.timeoutMs).unref();
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.once('response', (response) => {
      let read = 0;
      const done = () => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, headers: response.headers });
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough read: drop the connection rather than download the rest.
        if (read > options.maxResponseBytes) {
          response.destroy();
          done();
        }
      });
      response.once('end', done);
      response.on('error', () => done());
    });
    request.end(body);
  });
}

/** A `TimeoutError`, as `AbortSignal.timeout` gives: retried as TEMPORARY. It names the target without its query string, which often carries keys. */
function timedOut(url: URL, timeoutMs: number): DOMException {
  return new DOMException(`webhook ${url.origin}${url.pathname} did not answer within ${timeoutMs} ms (WEBHOOK_TIMEOUT_MS)`, 'TimeoutError');
}
