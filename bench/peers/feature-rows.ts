import { createClient } from '@redis/client';
import { startRedis } from '@requeue/test/support/redis';
import { progress } from '../report.js';
import type { Config, IdempotencyRun, Row } from './rows.js';
import type { BenchEmulator, SystemUnderTest } from './driver.js';
import { at, HAPPY_HANDLERS, inRounds } from './rounds.js';

/** The steady rows' shape: their targets ask for a few percent, less than one run's spread. */
export const STEADY = { runs: 5, backlogFactor: 1.5, warmupSeconds: 2, capSeconds: 3 } as const;

/** Messages a steady row's backlog holds: enough for its window at 0 ms. */
export const steadyBacklog = (config: Config): number => config.backlog * STEADY.backlogFactor;

/** A steady row's window: the longer warm-up and window, or `--quick`'s short one. */
export function steadyTiming(config: Config): { warmupSeconds: number; capSeconds: number } {
  return config.quick ? { warmupSeconds: 0, capSeconds: 1 } : { warmupSeconds: STEADY.warmupSeconds, capSeconds: STEADY.capSeconds };
}

/**
 * Rows for a target that compares a feature's cost within a few percent: the systems in
 * five rounds where the others take three, over 1.5× the backlog, timed after a longer
 * warm-up (2 s, then 3 s), so the window measures a running worker and not V8 compiling
 * the code in its first seconds, which a worker pays once. One round's spread on the
 * happy path (1.4 s windows) is ±20%, wider than the 2-5% these targets allow.
 */
async function steadyRows(emulator: BenchEmulator, config: Config, label: string, suts: SystemUnderTest[]): Promise<Row[]> {
  const rows: Row[] = [];
  const timing = steadyTiming(config);
  const runs = config.quick ? 1 : STEADY.runs;
  const count = steadyBacklog(config);
  for (const [handler, simulate] of HAPPY_HANDLERS) {
    progress(`${label}, ${handler} handler, ${count.toLocaleString('en-US')} messages, ${runs} run(s) each`);
    rows.push(...(await inRounds(emulator, `${label} ${handler}`, suts, { count, simulate }, { ...config, runs }, timing)));
  }
  return rows;
}

/**
 * The tracing rows: requeue as shipped (no SDK), with the OpenTelemetry SDK, with the
 * SDK's bare spans (what the SDK costs before requeue sets anything), and with tracing
 * off, on the happy path @50.
 */
export function tracingRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  return steadyRows(emulator, config, 'tracing', at(50, 'requeue', 'requeue-tracing-sdk', 'requeue-tracing-sdk-floor', 'requeue-tracing-off'));
}

/**
 * The feature-cost rows: requeue at its defaults against the same with
 * `WORKER_BACKPRESSURE=off`, and with its handler trusting the body (no schema), on the
 * happy path @50.
 */
export function featureCostRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  return steadyRows(emulator, config, 'feature cost', at(50, 'requeue', 'requeue-no-backpressure', 'requeue-no-schema'));
}

/**
 * The idempotency rows: requeue with its handler guarded by a real Redis (Debian's
 * redis-server, started here) beside requeue without, on the 5 ms happy path @50, and
 * the Redis commands it took per message, from Redis's own command counters.
 */
export async function idempotencyRun(emulator: BenchEmulator, config: Config): Promise<IdempotencyRun> {
  const redis = await startRedis();
  const client = createClient({ url: redis.url });
  try {
    await client.connect();
    const [, simulate] = HAPPY_HANDLERS[1];
    const runs = config.quick ? 1 : 3;
    progress(`idempotency (Redis), 5 ms I/O handler, ${config.backlog.toLocaleString('en-US')} messages, ${runs} run(s) each`);
    const suts = [...at(50, 'requeue'), { system: 'requeue-idempotency' as const, concurrency: 50, env: { WORKER_IDEMPOTENCY: redis.url } }];
    const rows = await inRounds(emulator, 'idempotency 5 ms I/O', suts, { count: config.backlog, simulate }, { ...config, runs });
    const commands = await commandCount(client);
    // Only the guarded worker talks to Redis; a run may stop at its time cap before the backlog is done.
    const handled = rows.find((row) => row.system === 'requeue-idempotency')?.processed ?? Number.NaN;
    return { rows, storeCallsPerMessage: commands / handled };
  } finally {
    await client.close().catch(() => undefined);
    await redis.stop();
  }
}

/** Every command Redis ran since its last reset but the bench's own (INFO, CONFIG RESETSTAT, the connection's): `cmdstat_<name>:calls=N,...` lines. */
export async function commandCount(client: { info(section: string): Promise<string> }): Promise<number> {
  const stats = await client.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (!['info', 'hello', 'client', 'config'].includes(match[1]!)) calls += Number(match[2]);
  return calls;
}
