import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import { startFauxqs } from 'fauxqs';

/**
 * The bench's emulator, in its own process: fauxqs behind a proxy that counts SQS API
 * calls by queue and action (the QueueUrl and X-Amz-Target of the JSON protocol), so
 * every system under test is counted the same way without touching its code, and runs
 * on different queues can share the emulator. Control endpoints under /__bench/ load
 * backlogs straight into fauxqs and read depths without being counted.
 */
const countsByQueue = new Map<string, Map<string, number>>();
/**
 * Per queue, how long each SQS action waits before it reaches fauxqs: a region's round
 * trip (10-30 ms) instead of loopback's 0.1 ms. `default` covers actions not named.
 */
const latencyByQueue = new Map<string, Record<string, number>>();
const fauxqs = await startFauxqs({ port: 0, logger: false });

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function control(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  const input = JSON.parse((await readBody(request)).toString() || '{}') as {
    queue: string;
    attributes?: Record<string, string>;
    bodies?: string[];
    count?: number;
    simulate?: object;
    latencyMs?: Record<string, number>;
  };
  if (path === '/__bench/create') {
    const created = fauxqs.createQueue(input.queue, { attributes: input.attributes });
    if (input.latencyMs) latencyByQueue.set(input.queue, input.latencyMs);
    // Through the proxy, so that SDKs using the queue URL as their endpoint are counted too.
    return json(response, 200, { ...created, queueUrl: `http://127.0.0.1:${proxyPort()}/000000000000/${created.queueName}` });
  }
  if (path === '/__bench/counts') return json(response, 200, Object.fromEntries(countsByQueue.get(input.queue) ?? []));
  if (path === '/__bench/delete') {
    fauxqs.deleteQueue(input.queue);
    countsByQueue.delete(input.queue);
    latencyByQueue.delete(input.queue);
    return json(response, 200, {});
  }
  if (path === '/__bench/load') {
    for (let i = 0; i < (input.count ?? 0); i++)
      fauxqs.sendMessage(input.queue, JSON.stringify({ id: `m-${i}`, ...(input.simulate ? { simulate: input.simulate } : {}) }));
    return json(response, 200, { loaded: input.count });
  }
  if (path === '/__bench/depth') {
    const queue = fauxqs.inspectQueue(input.queue);
    if (!queue) return json(response, 404, { error: `no queue ${input.queue}` });
    return json(response, 200, { ready: queue.messages.ready.length, delayed: queue.messages.delayed.length, inflight: queue.messages.inflight.length });
  }
  return json(response, 404, { error: `unknown ${path}` });
}

const proxy = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0]!;
  if (path.startsWith('/__bench/')) {
    control(request, response, path).catch((error: unknown) => json(response, 500, { error: String(error) }));
    return;
  }
  void forwardCounted(request, response);
});

/** The queue a call names: its QueueUrl (JSON body) or the queue URL it was sent to. */
function queueOf(path: string, body: string): string {
  const url = /"QueueUrl"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? path;
  return url.split('?')[0]!.split('/').filter(Boolean).at(-1) ?? '';
}

async function forwardCounted(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readBody(request);
  const target = request.headers['x-amz-target'];
  const action = typeof target === 'string' ? target.replace(/^AmazonSQS\./, '') : 'Query';
  const queue = queueOf(request.url ?? '/', body.toString());
  const counts = countsByQueue.get(queue) ?? new Map<string, number>();
  countsByQueue.set(queue, counts.set(action, (counts.get(action) ?? 0) + 1));
  const latency = latencyByQueue.get(queue);
  const delayMs = latency ? (latency[action] ?? latency.default ?? 0) : 0;
  // The whole round trip before the call reaches fauxqs: a long poll then waits on top, as in a region.
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  const upstream = forward({ host: '127.0.0.1', port: fauxqs.port, method: request.method, path: request.url, headers: request.headers }, (reply) => {
    response.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(response);
  });
  upstream.on('error', (error) => {
    if (!response.headersSent) response.writeHead(502);
    response.end(String(error));
  });
  upstream.end(body);
}
proxy.keepAliveTimeout = 60_000;
function proxyPort(): number {
  const address = proxy.address();
  return typeof address === 'object' && address ? address.port : 0;
}
proxy.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: proxyPort() })}\n`));
process.on('SIGTERM', () => {
  proxy.close();
  void fauxqs.stop().then(() => process.exit(0));
});
