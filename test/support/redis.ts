import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@requeue/local-aws';
import { createClient } from '@redis/client';
import { ensureDebianPackage } from './debian-package.js';

const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A real redis-server on 127.0.0.1 and a free port, without persistence; resolves once it answers PING. */
export async function startRedis(port?: number): Promise<RedisServer> {
  ensureDebianPackage('redis-server', REDIS_SERVER, 'the idempotency tests');
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'requeue-redis-'));
  const child = spawn(REDIS_SERVER, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${chosen}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = createClient({ url, socket: { reconnectStrategy: false } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      await client.close();
      break;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${url}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
