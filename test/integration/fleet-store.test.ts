import { createClient } from '@redis/client';
import { Dependencies, resolveBackpressure } from '../../libs/sqs/src/backpressure/index.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbFleetStore, RedisFleetStore } from '../../libs/sqs/src/env/fleet-stores.js';
import { fleetStateStore } from '../../libs/sqs/src/env/stores.js';
import { startDynamoDb, type LocalDynamoDb } from '../support/dynamodb.js';
import { eventually } from '../support/emulator.js';
import { startRedis, type RedisServer } from '../support/redis.js';

let redis: RedisServer;
let dynamo: LocalDynamoDb;
const redisClients: Array<ReturnType<typeof createClient>> = [];

beforeAll(async () => {
  [redis, dynamo] = await Promise.all([startRedis(), startDynamoDb()]);
}, 300_000);
afterAll(async () => {
  await Promise.all(redisClients.map((client) => client.close().catch(() => undefined)));
  await Promise.all([redis?.stop(), dynamo?.stop()]);
});

const report = (workerId: string, seenAt: number, ratePerSecond = 0) => ({
  workerId,
  pacePerSecond: ratePerSecond,
  ratePerSecond,
  pausedUntil: 0,
  breaker: 'closed' as const,
  recoveredAt: 0,
  seenAt,
});

async function redisStore(): Promise<RedisFleetStore> {
  const client = createClient({ url: redis.url });
  redisClients.push(client);
  await client.connect();
  return new RedisFleetStore(client);
}

/** Two workers' stores on one server or table, each with its own connection state. */
async function redisPair(): Promise<[RedisFleetStore, RedisFleetStore]> {
  return [await redisStore(), await redisStore()];
}

async function dynamoPair(): Promise<[DynamoDbFleetStore, DynamoDbFleetStore]> {
  const table = await dynamo.createIdempotencyTable();
  return [new DynamoDbFleetStore(dynamo.client, table, UpdateItemCommand), new DynamoDbFleetStore(dynamo.client, table, UpdateItemCommand)];
}

describe.each([
  ['Redis', redisPair],
  ['DynamoDB', dynamoPair],
])('%s fleet store', (_name, pairOf) => {
  it("returns every worker's latest report for a dependency, apart from other dependencies", async () => {
    const [a, b] = await pairOf();
    const dependency = `api-${Math.random()}`;
    const now = Date.now();
    await a.exchange(dependency, report('a', now, 10), 3000);
    await a.exchange(`${dependency}-other`, report('a', now, 99), 3000);
    const seen = await b.exchange(dependency, report('b', now, 20), 3000);
    expect(seen).toEqual(expect.arrayContaining([report('a', now, 10), report('b', now, 20)]));
    expect(seen).toHaveLength(2);
    expect(await a.exchange(dependency, report('a', now + 1, 15), 3000)).toEqual(expect.arrayContaining([report('a', now + 1, 15), report('b', now, 20)]));
  });

  it('drops the report of a worker gone quiet for longer than the stale limit', async () => {
    const [a, b] = await pairOf();
    const dependency = `api-${Math.random()}`;
    const now = Date.now();
    await a.exchange(dependency, report('gone', now - 10_000), 3000);
    // The first exchange still sees it (and marks it); the ones after do not.
    await b.exchange(dependency, report('b', now), 3000);
    await b.exchange(dependency, report('b', now + 1), 3000);
    expect(await b.exchange(dependency, report('b', now + 2), 3000)).toEqual([report('b', now + 2)]);
  });

  it('removes a report from the future (a forged one, or a clock running ahead), which would otherwise never go stale', async () => {
    const [a, b] = await pairOf();
    const dependency = `api-${Math.random()}`;
    const now = Date.now();
    await a.exchange(dependency, { ...report('ahead', now + 365 * 86_400_000), pausedUntil: now + 400 * 86_400_000 }, 3000);
    await b.exchange(dependency, report('b', now), 3000);
    await b.exchange(dependency, report('b', now + 1), 3000);
    expect(await b.exchange(dependency, report('b', now + 2), 3000)).toEqual([report('b', now + 2)]);
  });
});

describe('a fleet sharing backpressure through Redis', () => {
  it('starts a worker whose breaker closes late at its share of the pace another learnt', async () => {
    const store = await redisStore();
    const worker = (workerId: string) =>
      new Dependencies(
        resolveBackpressure({
          holdMs: 60_000,
          rateLimitEvidence: 1,
          breaker: { minimumRequests: 1, cooldownMs: 200, maxCooldownMs: 200 },
          fleet: { store, workerId, syncIntervalMs: 100 },
        }),
        10,
        () => Date.now(),
        () => 0,
      );
    const dependency = `api-${Math.random()}`;
    const [early, late] = [worker('early').get(dependency), worker('late').get(dependency)];
    // The early worker learns a pace: ten calls admitted over 200 ms, then a 429 (about 48/s).
    for (let i = 0; i < 10; i++) {
      const admission = await early.admit();
      if (admission.kind === 'run') early.finish(admission.ticket, { kind: 'success' });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rejected = await early.admit();
    if (rejected.kind !== 'run') throw new Error(`expected a call, got ${rejected.kind}`);
    early.finish(rejected.ticket, { kind: 'rate-limited', retryAfterMs: 1 });
    // Its estimate of the fleet's rate is known once it has read the reports that follow its 429.
    await eventually(() => (early.memberState('early').ratePerSecond > 0 ? true : undefined), 5000);
    // The late one is down: its breaker opens, and it reads the fleet while open.
    const probe = await late.admit();
    if (probe.kind !== 'run') throw new Error(`expected a call, got ${probe.kind}`);
    late.finish(probe.ticket, { kind: 'unavailable' });
    await eventually(async () => (late.snapshot().breaker === 'half-open' ? true : undefined), 5000);
    const recovery = await late.admit();
    if (recovery.kind !== 'run') throw new Error(`expected the probe, got ${recovery.kind}`);
    late.finish(recovery.ticket, { kind: 'success' });
    const startedAt = Date.now();
    for (let i = 0; i < 5; i++) {
      const admission = await late.admit();
      if (admission.kind === 'run') late.finish(admission.ticket, { kind: 'success' });
    }
    // Half of the early one's ~48/s: about 42 ms apart; unpaced, five calls take no time.
    expect(Date.now() - startedAt).toBeGreaterThan(100);
  });

  it('goes on alone, without waiting on it, when the store is down', async () => {
    const down = fleetStateStore({ store: 'redis', url: 'redis://127.0.0.1:1' }, pino({ level: 'silent' }));
    const changes: string[] = [];
    const gates = new Dependencies(
      resolveBackpressure({ breaker: false, rateLimitEvidence: 1, fleet: { store: down.value, syncIntervalMs: 100, timeoutMs: 100 } }),
      10,
      () => Date.now(),
      () => 0,
      {
        onFleetStoreHealth: (health) => changes.push(health.kind),
      },
    );
    const gate = gates.get('api');
    const first = await gate.admit();
    if (first.kind !== 'run') throw new Error(`expected a call, got ${first.kind}`);
    gate.finish(first.ticket, { kind: 'rate-limited', retryAfterMs: 300 });
    await eventually(async () => (changes.includes('unreachable') ? true : undefined), 5000);
    // Its own pause holds, and ends on time.
    expect(gate.blockedUntil()).toBeGreaterThan(Date.now());
    await eventually(async () => (gate.blockedUntil() === undefined ? true : undefined), 2000);
    expect((await gate.admit()).kind).toBe('run');
    gates.stop();
    await down.close();
  });
});

// The DynamoDB client of fleetStateStore reads its endpoint and region from the environment, as the SDK does.
describe('fleetStateStore', () => {
  it('connects to the DynamoDB table WORKER_FLEET_STATE names', async () => {
    const table = await dynamo.createIdempotencyTable();
    // Test files share their worker process: the variables go back as they were.
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_ACCESS_KEY_ID', process.env.AWS_ACCESS_KEY_ID ?? 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', process.env.AWS_SECRET_ACCESS_KEY ?? 'test');
    vi.stubEnv('AWS_REGION', process.env.AWS_REGION ?? 'us-east-1');
    const { value: store, close } = fleetStateStore({ store: 'dynamodb', tableName: table }, pino({ level: 'silent' }));
    try {
      expect(await store.exchange('api', report('w', Date.now()), 3000)).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
      await close();
    }
  });
});
