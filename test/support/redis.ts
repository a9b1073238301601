import { afterAll, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@requeue/local-aws';
import { ensureDebianPackage } from './debian-package.js';

const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Tries at a probed free port before giving up: another process may take one between the probe and redis-server's bind. */
const ATTEMPTS = 3;

/**
 * A real redis-server on 127.0.0.1, without persistence, on `port` or a free one;
 * resolves once it says it accepts connections. Its own line, not a PING, says so: a PING
 * could be answered by another test's server on a port this one failed to bind.
 */
export async function startRedis(port?: number): Promise<RedisServer> {
  ensureDebianPackage('redis-server', REDIS_SERVER, 'the idempotency tests');
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    const started = await spawnRedis(chosen);
    if (started.ok) return started.server;
    if (port !== undefined || attempt === ATTEMPTS) throw new Error(`redis-server could not listen on 127.0.0.1:${chosen}:\n${started.output}`);
  }
}

type Spawned = { ok: true; server: RedisServer } | { ok: false; output: string };

function spawnRedis(port: number): Promise<Spawned> {
  const dir = mkdtempSync(join(tmpdir(), 'requeue-redis-'));
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ ok: false, output: `${output}(no "Ready to accept connections" within 10 s)` });
    }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      // Past readiness its log is of no interest, but the pipe must keep draining.
      child.stdout!.removeAllListeners('data').resume();
      resolve({ ok: true, server: { url: `redis://127.0.0.1:${port}`, process: child, stop: () => stopRedis(child) } });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => {
      clearTimeout(timer);
      resolve({ ok: false, output });
    });
  });
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A real Redis for a test file: started before its tests (apt may install redis-server
 * first), stopped after them. Read the server inside a test.
 */
export function redisForSuite(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedis();
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('Redis starts in beforeAll: use it inside a test');
    return server;
  };
}
