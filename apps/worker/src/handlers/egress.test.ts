import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyFailure, NonRetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config.js';
import { isInternalAddress } from './egress.js';
import { WebhookHandler } from './webhook.handler.js';

/** Receivers on 127.0.0.1 that record what reached them: the "internal" services a publisher must not reach. */
const hits: string[] = [];
let internal: Server;
let secret: Server;
let internalPort: number;
let secretPort: number;
let streamedBytes = 0;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  secret = createServer((request, response) => {
    hits.push(`secret ${request.url}`);
    response.end('credentials');
  });
  secretPort = await listen(secret);
  internal = createServer((request, response) => {
    hits.push(`internal ${request.url}`);
    request.resume();
    if (request.url === '/redirect') return void response.writeHead(302, { location: `http://127.0.0.1:${secretPort}/secret-internal` }).end();
    if (request.url === '/huge') {
      // An answer with no end: the worker must stop reading, not buffer it.
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) streamedBytes += chunk.length;
        if (!response.destroyed && streamedBytes < 256 * 1024 * 1024) response.once('drain', pump);
      };
      pump();
      return;
    }
    response.end('{}');
  });
  internalPort = await listen(internal);
});
afterAll(async () => {
  internal.closeAllConnections();
  await Promise.all([internal, secret].map((server) => new Promise((resolve) => server.close(resolve))));
});

const message = (body: unknown): WorkerMessage => ({
  body,
  rawBody: '',
  attributes: {},
  attempt: 1,
  firstReceivedAt: Date.now(),
  idempotencyKey: 'orig-1',
  messageId: 'm-1',
  receiveCount: 1,
  signal: new AbortController().signal,
});

const defaults = new WebhookHandler(loadWorkerConfig({ WEBHOOK_TIMEOUT_MS: '2000' }));
const failure = (handler: WebhookHandler, body: unknown) =>
  handler.handle(message(body)).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('webhook egress: a publisher cannot make the worker call internal addresses', () => {
  it('refuses 127.0.0.1 by default, before connecting: a non-retryable dead letter that names the setting', async () => {
    hits.length = 0;
    const error = await failure(defaults, { url: `http://127.0.0.1:${internalPort}/start`, payload: {} });
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(classifyFailure(error, Date.now())).toMatchObject({ retryable: false, reason: 'non-retryable', errorType: 'EGRESS_REFUSED' });
    expect(String((error as Error).message)).toMatch(/internal address.*WEBHOOK_ALLOW_HOSTS/);
    expect(hits).toEqual([]);
  });

  it('refuses a DNS name that resolves to loopback (localhost), checking the address it connects to', async () => {
    hits.length = 0;
    const error = await failure(defaults, { url: `http://localhost:${internalPort}/start` });
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(String((error as Error).message)).toMatch(/localhost resolves to an internal address/);
    expect(hits).toEqual([]);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.170.2/v2/credentials',
    'http://10.0.0.1/',
    'http://100.64.0.1/',
    'http://192.168.1.1/',
    'http://172.20.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
  ])('refuses %s without a connection', async (url) => {
    expect(await failure(defaults, { url })).toBeInstanceOf(NonRetryableError);
  });

  it('does not follow a redirect, even from an allowed host', async () => {
    hits.length = 0;
    const allowed = new WebhookHandler(loadWorkerConfig({ WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${internalPort}` }));
    const error = await failure(allowed, { url: `http://127.0.0.1:${internalPort}/redirect` });
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(String((error as Error).message)).toMatch(/answered 302: redirects are not followed/);
    expect(hits).toEqual(['internal /redirect']);
  });

  it('allows a host:port entry only on that port', async () => {
    const onePort = new WebhookHandler(loadWorkerConfig({ WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${internalPort}` }));
    expect(await failure(onePort, { url: `http://127.0.0.1:${internalPort}/ok` })).toBeUndefined();
    expect(await failure(onePort, { url: `http://127.0.0.1:${secretPort}/secret-internal` })).toBeInstanceOf(NonRetryableError);
  });

  it('pins the origin when WEBHOOK_URL is set: the body may change only the path and query', async () => {
    const pinned = new WebhookHandler(loadWorkerConfig({ WEBHOOK_URL: `http://127.0.0.1:${internalPort}/hooks`, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' }));
    expect(await failure(pinned, { url: `http://127.0.0.1:${internalPort}/hooks/orders?v=2`, payload: 1 })).toBeUndefined();
    const moved = await failure(pinned, { url: `http://127.0.0.1:${secretPort}/secret-internal`, payload: 1 });
    expect(String((moved as Error).message)).toMatch(/may change only the path and query of WEBHOOK_URL/);
  });

  it('dead-letters at once a URL with credentials, and a payload JSON cannot hold', async () => {
    expect(await failure(defaults, { url: 'https://ann:hunter2@hooks.example.com/x' })).toBeInstanceOf(NonRetryableError);
    expect(String(((await failure(defaults, { url: 'https://ann:hunter2@hooks.example.com/x' })) as Error).message)).not.toContain('hunter2');
    let deep: unknown = 0;
    for (let i = 0; i < 500_000; i++) deep = [deep];
    const unserialisable = await failure(defaults, { url: 'https://hooks.example.com/x', payload: deep });
    expect(unserialisable).toBeInstanceOf(NonRetryableError);
    expect(String((unserialisable as Error).message)).toMatch(/cannot be serialised as JSON/);
  });

  it('reads a response only up to a small cap: an endless answer is cut off, not buffered', async () => {
    const allowed = new WebhookHandler(loadWorkerConfig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '5000' }));
    const before = process.memoryUsage().rss;
    expect(await failure(allowed, { url: `http://127.0.0.1:${internalPort}/huge` })).toBeUndefined();
    expect(streamedBytes).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('isInternalAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.127.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd12::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '224.0.0.1',
  ])('%s is internal', (address) => expect(isInternalAddress(address)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1'])('%s is public', (address) =>
    expect(isInternalAddress(address)).toBe(false),
  );
});
