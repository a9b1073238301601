import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@requeue/local-aws';
import { createClient } from '@redis/client';

const REDIS_SERVER = '/usr/bin/redis-server';

/** Installs Debian's redis-server with apt when it is missing (the test setup's job). */
function ensureRedisServer(): void {
  if (existsSync(REDIS_SERVER)) return;
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  try {
    execSync(`${sudo}apt-get update -qq && ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server`, { stdio: 'inherit', timeout: 280_000 });
  } catch (cause) {
    throw new Error(`could not install redis-server with apt (needed by the idempotency tests): ${(cause as Error).message}`, { cause });
  }
}

export interface RedisServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A real redis-server on 127.0.0.1 and a free port, without persistence; resolves once it answers PING. */
export async function startRedis(port?: number): Promise<RedisServer> {
  ensureRedisServer();
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
