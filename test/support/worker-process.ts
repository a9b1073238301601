import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '@requeue/local-aws';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The real app, bundled as `npm start` and the image run it (npm test builds first). Found
 * from test/support (vitest) or test/dist/support (the compiled soak).
 */
export const WORKER_ENTRY =
  [new URL('../../apps/worker/dist/bundle.js', import.meta.url), new URL('../../../apps/worker/dist/bundle.js', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((path) => existsSync(path)) ?? fileURLToPath(new URL('../../apps/worker/dist/bundle.js', import.meta.url));

export { freePort };

/** The x-retry key every test worker shares, as a deployment's workers share theirs. */
export const TEST_RETRY_STATE_KEY = 'test-only-retry-state-key-0123456789abcdef';

/**
 * A Redis URL where nothing listens, for a store that is down: port 1 is privileged and
 * unused. A probed free port would not do: another test's server may take it meanwhile.
 */
export const NOTHING_LISTENS = 'redis://127.0.0.1:1';

export interface WorkerProcess {
  child: ChildProcess;
  /** The port the worker's health server bound; throws until the worker has printed it. */
  readonly healthPort: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const HEALTH_LINE = /health on http:\/\/[^\s/]+:(\d+)\//;

/**
 * Starts the worker app as its own process, as ECS would, with the given environment. Its
 * health server binds any free port (0) and the worker prints the one it got: a port probed
 * here and handed over could be taken by another test's process in between.
 */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [WORKER_ENTRY], {
    env: {
      PATH: process.env.PATH ?? '',
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'warn',
      WORKER_HEALTH_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: '0',
      // Many workers run at once in the suites; the dashboard has its own tests.
      WORKER_DASHBOARD: 'off',
      // What a deployment shares between its workers, so that every test worker trusts the others' x-retry.
      WORKER_RETRY_STATE_KEYS: TEST_RETRY_STATE_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': by then all of its output has been read.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    get healthPort() {
      const port = HEALTH_LINE.exec(output)?.[1];
      if (port === undefined) throw new Error(`the worker has not printed its health URL yet; await waitUntilReady first:\n${output}`);
      return Number(port);
    },
    output: () => output,
    exited,
  };
}

/** Resolves once /health/ready answers 200. */
export async function waitUntilReady(worker: WorkerProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (worker.child.exitCode !== null) throw new Error(`worker exited early:\n${worker.output()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${worker.healthPort}/health/ready`);
      if (response.status === 200) return;
    } catch {
      // Not listening yet, or its health URL not printed yet (healthPort throws until then).
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`worker not ready after ${timeoutMs} ms:\n${worker.output()}`);
}
