import type { createClient } from '@redis/client';
import { cappedExponentialMs } from '@requeue/retry/engine';
import type { WorkerLogger } from '../events/logger.js';
import { MissingPeerError, optionalPeer } from '../peers/optional-peer.js';

function newClient(create: typeof createClient, url: string) {
  return create({ url, disableOfflineQueue: true, socket: { reconnectStrategy: (retries) => cappedExponentialMs(100, 2, retries, 5000) } });
}

export type RedisConnection = ReturnType<typeof newClient>;

/** node-redis, as `@redis/client` or the `redis` package that re-exports it. */
function redisClientFactory(feature: string): typeof createClient {
  type NodeRedis = { createClient: typeof createClient };
  const peer = optionalPeer<NodeRedis>('@redis/client') ?? optionalPeer<NodeRedis>('redis');
  if (!peer) throw new MissingPeerError(['@redis/client'], feature);
  return peer.createClient;
}

/**
 * Connects without waiting: a server that is down at start makes its calls fail at once
 * (nothing queues behind a dead connection), and it is used as soon as it answers. The
 * outage is logged once, and so is the recovery. The socket does not keep the process
 * alive: a worker that has drained exits even if nobody closes it.
 */
export function connectRedis(url: string, logger: WorkerLogger, role: string, feature: string): RedisConnection {
  const client = newClient(redisClientFactory(feature), url);
  let reported = false;
  client.on('error', (error: unknown) => {
    if (!reported) logger.warn({ err: error }, `${role} (Redis) unreachable; retrying`);
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info({}, `${role} (Redis) reachable again`);
    reported = false;
  });
  client.unref();
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
