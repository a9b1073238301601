import { createClient } from '@redis/client';
import type { Logger } from 'pino';

function newClient(url: string) {
  return createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) } });
}

export type RedisConnection = ReturnType<typeof newClient>;

/**
 * Connects without waiting: a server that is down at start makes its calls fail at once
 * (nothing queues behind a dead connection), and it is used as soon as it answers. The
 * outage is logged once, and so is the recovery.
 */
export function connectRedis(url: string, logger: Logger, role: string): RedisConnection {
  const client = newClient(url);
  let reported = false;
  client.on('error', (error: unknown) => {
    if (!reported) logger.warn({ err: error }, `${role} (Redis) unreachable; retrying`);
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info(`${role} (Redis) reachable again`);
    reported = false;
  });
  client.connect().catch(() => undefined);
  return client;
}

/** Closes gracefully when connected; a client still trying to connect is stopped at once. */
export async function closeRedis(client: RedisConnection): Promise<void> {
  if (!client.isReady) {
    if (client.isOpen) client.destroy();
    return;
  }
  await client.close().catch(() => client.destroy());
}
