import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyFailure, NonRetryableError, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config.js';
import { EgressPolicy } from './egress.js';
import { WebhookHandler, webhookDependencyKey } from './webhook.handler.js';

let server: Server;
let base: string;
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const [, status, retryAfter] = /^\/(\d{3})(?:\/(.+))?$/.exec(new URL(request.url ?? '/', 'http://receiver').pathname) ?? [];
      if (retryAfter) response.setHeader('retry-after', decodeURIComponent(retryAfter));
      response.writeHead(Number(status ?? 200)).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// These tests' receivers listen on 127.0.0.1: allowed here, as the demo and the bench allow it.
const handler = new WebhookHandler(loadWorkerConfig({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' }));
const message = (body: unknown, idempotencyKey = 'orig-1'): WorkerMessage => ({
  body,
  rawBody: JSON.stringify(body),
  attributes: {},
  attempt: 1,
  firstReceivedAt: Date.now(),
  idempotencyKey,
  messageId: 'copy-7',
  receiveCount: 1,
  signal: new AbortController().signal,
});

describe('webhook handler', () => {
  it('POSTs the payload as JSON with a stable Idempotency-Key', async () => {
    await handler.handle(message({ url: `${base}/200`, payload: { order: 1 } }));
    const last = received.at(-1)!;
    expect(JSON.parse(last.body)).toEqual({ order: 1 });
    expect(last.headers['idempotency-key']).toBe('orig-1');
    expect(last.headers['content-type']).toBe('application/json');
  });

  it('classifies 429 as RATE_LIMIT honouring Retry-After in seconds', async () => {
    const error = await handler.handle(message({ url: `${base}/429/7` })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect(error).toMatchObject({ errorType: 'RATE_LIMIT', retryAfterMs: 7000 });
  });

  it('reads Retry-After as an HTTP date', async () => {
    const at = encodeURIComponent(new Date(Date.now() + 60_000).toUTCString());
    const error = (await handler.handle(message({ url: `${base}/429/${at}` })).catch((e: unknown) => e)) as RetryableError;
    expect(error.retryAfterMs).toBeGreaterThan(55_000);
  });

  it.each([408, 425, 500, 503])('classifies %i as transient', async (status) => {
    const error = await handler.handle(message({ url: `${base}/${status}` })).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorType: 'TEMPORARY' });
  });

  it('names the target in its error without the query string, which often carries keys', async () => {
    const error = await handler.handle(message({ url: `${base}/503?api_key=sk_live_51Hx&sig=abc` })).catch((e: unknown) => e);
    expect(String((error as Error).message)).toBe(`webhook ${base}/503 answered 503`);
    expect(classifyFailure(error, Date.now()).message).not.toContain('sk_live_51Hx');
  });

  it.each([400, 404, 410, 422])('classifies %i as permanent', async (status) => {
    expect(await handler.handle(message({ url: `${base}/${status}` })).catch((e: unknown) => e)).toBeInstanceOf(NonRetryableError);
  });

  it('gives up on a receiver that never answers after WEBHOOK_TIMEOUT_MS, as transient, naming the target without its query', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
    try {
      const started = performance.now();
      const error = await handler.handle(message({ url: `${target}?token=secret` })).catch((e: unknown) => e);
      // WEBHOOK_TIMEOUT_MS is 500 here; a loaded machine may add a little.
      expect(performance.now() - started).toBeGreaterThanOrEqual(490);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(classifyFailure(error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
      expect((error as Error).message).toBe(`webhook ${target} did not answer within 500 ms (WEBHOOK_TIMEOUT_MS)`);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("stops waiting as soon as the message's own signal aborts (its handler timeout, or shutdown)", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const controller = new AbortController();
    try {
      const handling = handler
        .handle({ ...message({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/` }), signal: controller.signal })
        .catch((e: unknown) => e);
      controller.abort(new Error('worker stopping'));
      const error = await handling;
      expect((error as Error).name).toBe('AbortError');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('treats a refused connection as transient', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await handler.handle(message({ url: `http://127.0.0.1:${port}/` })).catch((e: unknown) => e);
    expect(classifyFailure(error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
  });

  it('treats a connection reset mid-request as transient', async () => {
    const resetting = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    const port = (resetting.address() as AddressInfo).port;
    const error = await handler.handle(message({ url: `http://127.0.0.1:${port}/` })).catch((e: unknown) => e);
    await new Promise<void>((resolve) => resetting.close(() => resolve()));
    expect(classifyFailure(error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
  });

  it('treats a DNS failure as transient', async () => {
    // .invalid never resolves (RFC 6761).
    const error = await handler.handle(message({ url: 'http://requeue-webhook.invalid/' })).catch((e: unknown) => e);
    expect(classifyFailure(error, Date.now())).toMatchObject({ retryable: true, errorType: 'TEMPORARY' });
  });

  it('rejects a body without a usable url as non-retryable when WEBHOOK_URL is unset', async () => {
    expect(await handler.handle(message({ hello: 'world' })).catch((e: unknown) => e)).toBeInstanceOf(NonRetryableError);
    expect(await handler.handle(message({ url: 'ftp://x' })).catch((e: unknown) => e)).toBeInstanceOf(NonRetryableError);
  });

  it('keys each message by its target host, so hosts fail apart', () => {
    const keyOf = webhookDependencyKey(undefined, new EgressPolicy([]));
    expect(keyOf({ body: { url: 'https://a.example.com/x', payload: 1 } })).toBe('a.example.com');
    expect(keyOf({ body: { url: 'http://b.example.com:9000/y' } })).toBe('b.example.com:9000');
    expect(keyOf({ body: { order: 7 } })).toBeUndefined();
    expect(keyOf({ body: { url: 'not a url' } })).toBeUndefined();
    // WEBHOOK_URL pins the host: every message keys to it, and a body naming another host has no key (it is dead-lettered).
    const pinned = webhookDependencyKey('http://default.example.com:8080/hooks', new EgressPolicy([]));
    expect(pinned({ body: { order: 7 } })).toBe('default.example.com:8080');
    expect(pinned({ body: { url: 'http://default.example.com:8080/hooks/v2' } })).toBe('default.example.com:8080');
    expect(pinned({ body: { url: 'https://a.example.com/x' } })).toBeUndefined();
  });

  it('gives no key of its own to a target the egress policy refuses: it is never called, so it gets no state', () => {
    const keyOf = webhookDependencyKey(undefined, new EgressPolicy(['10.0.0.7']));
    expect(keyOf({ body: { url: 'http://10.1.2.3/x' } })).toBeUndefined();
    expect(keyOf({ body: { url: 'http://[fd00::1]:8080/x' } })).toBeUndefined();
    expect(keyOf({ body: { url: 'http://10.0.0.7/x' } })).toBe('10.0.0.7');
  });
});
