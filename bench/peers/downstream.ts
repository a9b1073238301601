import { createServer, type Server } from 'node:http';

export interface DownstreamOptions {
  /** 503 for everything during the first `outageMs` after `open()`. */
  outageMs: number;
  /** Then a token bucket of this many requests per second (burst of the same size). */
  capacityPerSecond: number;
}

export interface Downstream {
  url: string;
  /** Starts the clock: the outage runs from now. */
  open(): void;
  /** Requests received in each second since `open()`, by outcome. */
  timeline(): Array<{ second: number; accepted: number; rejected: number }>;
  total(): number;
  close(): Promise<void>;
}

/**
 * The flaky dependency of the herd scenario: down (503) for a while, then admitting a
 * fixed rate and answering 429 with `Retry-After: 1` beyond it.
 */
export async function startDownstream(options: DownstreamOptions): Promise<Downstream> {
  let openedAt = Date.now();
  let tokens = options.capacityPerSecond;
  let refilledAt = Date.now();
  const seconds = new Map<number, { accepted: number; rejected: number }>();
  const record = (accepted: boolean) => {
    const second = Math.floor((Date.now() - openedAt) / 1000);
    const entry = seconds.get(second) ?? { accepted: 0, rejected: 0 };
    if (accepted) entry.accepted++;
    else entry.rejected++;
    seconds.set(second, entry);
  };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const now = Date.now();
      if (now - openedAt < options.outageMs) {
        record(false);
        response.writeHead(503).end();
        return;
      }
      tokens = Math.min(options.capacityPerSecond, tokens + ((now - refilledAt) / 1000) * options.capacityPerSecond);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        record(true);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      record(false);
      response.writeHead(429, { 'retry-after': '1' }).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    open() {
      openedAt = Date.now();
      tokens = options.capacityPerSecond;
      refilledAt = openedAt;
      seconds.clear();
    },
    timeline() {
      const last = Math.max(-1, ...seconds.keys());
      return Array.from({ length: last + 1 }, (_, second) => ({ second, ...(seconds.get(second) ?? { accepted: 0, rejected: 0 }) }));
    },
    total: () => [...seconds.values()].reduce((sum, s) => sum + s.accepted + s.rejected, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
