import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type ScheduledRetry, type WorkerLogger } from '@requeue/sqs';
import { discardDeadLetters, queueDepth, replayDeadLetters } from '@requeue/sqs/dead-letters';
import type { DashboardMetrics } from './dashboard-metrics.js';
import { DeadLetterView, deadLetterRow } from './dead-letter-view.js';
import { DASHBOARD_PAGE } from './page.js';

export interface DashboardOptions {
  host: string;
  port: number;
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
  metrics: DashboardMetrics;
  /** The retries and deferrals the worker scheduled that are not yet due. */
  scheduledRetries: () => readonly ScheduledRetry[];
  /** A URL with `{traceId}`, where each retry's trace id links to. @default the id is shown, unlinked */
  traceUrl?: string | undefined;
  logger: Pick<WorkerLogger, 'warn'>;
}

export interface Dashboard {
  /** The page, with the token in the fragment (never sent to the server in requests for the page). */
  url: string;
  token: string;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const ASSETS: Record<string, { path: string; type: string }> = {
  '/assets/uplot.js': { path: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript' },
  '/assets/uplot.css': { path: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css' },
};

function send(response: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(type === 'application/json' ? JSON.stringify(body) : String(body));
}

/** Host headers of a request made to this machine by name or address; anything else came through a DNS name pointed here. */
const LOCAL_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * The local counterpart of the CloudWatch dashboard: one page on 127.0.0.1 with queue
 * depths, per-second activity charts, the retry-delay histogram, the retries waiting and
 * the DLQ by cause and message by message, with replay and discard buttons. Every API call, read or write, needs the token
 * printed at startup (the page has it from its URL's fragment), and only requests for
 * 127.0.0.1 or localhost are answered: another local process, a web page or a DNS name
 * rebound to this machine can neither read the dead letters nor change them.
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const token = randomBytes(16).toString('hex');
  const dlq = { sqs: options.sqs, dlqUrl: options.dlqUrl };
  const authorized = (request: IncomingMessage) => {
    const given = Buffer.from(String(request.headers['x-requeue-token'] ?? ''));
    const expected = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const deadLetters = new DeadLetterView(dlq);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (!LOCAL_HOST.test(request.headers.host ?? '')) return send(response, 403, { error: 'only 127.0.0.1 and localhost are answered' });
    const url = new URL(request.url ?? '/', 'http://dashboard');
    if (request.method === 'GET' && url.pathname === '/') return send(response, 200, DASHBOARD_PAGE, 'text/html');
    const asset = ASSETS[url.pathname];
    if (request.method === 'GET' && asset) return send(response, 200, readFileSync(asset.path, 'utf8'), asset.type);
    if (url.pathname.startsWith('/api/') && !authorized(request)) {
      return send(response, 403, { error: 'the dashboard API needs the token printed when the worker started (x-requeue-token)' });
    }
    if (request.method === 'GET' && url.pathname === '/api/state') {
      const [queue, dlqDepth] = await Promise.all([queueDepth(options.sqs, options.queueUrl), queueDepth(options.sqs, options.dlqUrl)]);
      return send(response, 200, { at: Date.now(), queue, dlq: dlqDepth, activity: options.metrics.snapshot() });
    }
    if (request.method === 'GET' && url.pathname === '/api/dead-letters') return send(response, 200, await deadLetters.read());
    if (request.method === 'GET' && url.pathname === '/api/dead-letter-groups') return send(response, 200, await deadLetters.groups());
    if (request.method === 'GET' && url.pathname === '/api/retries')
      return send(response, 200, { at: Date.now(), retries: options.scheduledRetries(), traceUrl: options.traceUrl ?? null });
    const action = /^\/api\/dead-letters\/([^/]+)\/(replay|discard)$/.exec(url.pathname);
    if (request.method === 'POST' && action) {
      deadLetters.invalidate();
      const messageId = decodeURIComponent(action[1]!);
      if (action[2] === 'replay') {
        // "Retry now": back to this worker's queue with a fresh retry budget.
        // Only to the queue this worker consumes, whatever the dead letter's record says.
        const result = await replayDeadLetters(dlq, { messageId }, { to: options.queueUrl, resetAttempts: true, dryRun: false, max: 1 });
        return send(response, result.replayed.length ? 200 : 404, result);
      }
      const result = await discardDeadLetters(dlq, { messageId }, { max: 1 }, async () => true);
      return send(response, result.deleted.length ? 200 : 404, { deleted: result.deleted.map(deadLetterRow) });
    }
    return send(response, 404, { error: 'not found' });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.logger.warn({ err: error, path: request.url }, 'dashboard request failed');
      if (!response.headersSent) send(response, 502, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}/#token=${token}`,
    token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
