import { createClient } from '@redis/client';
import { startRedis } from '@requeue/test/support/redis';
import { markdownTable, progress } from '../report.js';
import type { Config } from './rows.js';
import type { BenchEmulator } from './driver.js';
import { commandCount } from './feature-rows.js';
import { HERD, idealDrainSeconds, runHerd, summarizeHerd, type HerdSummary } from './herd.js';

/** Worker processes sharing one queue and one dependency, as the service scales out. */
export const FLEET_SIZES = [1, 4, 10] as const;
/** The quick run only checks that every kind of run works: a fleet of 4 stands for all sizes. */
export function fleetSizes(quick: boolean): readonly number[] {
  return quick ? [4] : FLEET_SIZES;
}

/** Each worker's concurrency in the fleet runs. */
const FLEET_CONCURRENCY = 10;
/** The single worker of the end-to-end herd above, run again beside the fleets so that one run shows whether a change helps a fleet at its expense. */
const SINGLE_WORKER_CONCURRENCY = 50;

export interface FleetRun {
  workers: number;
  concurrency: number;
  /** `redis`: the workers share backpressure through WORKER_FLEET_STATE; `none`: each on its own. */
  store: 'none' | 'redis';
  /** Redis commands per message handled, for the runs with the store. */
  storeCallsPerMessage: number | undefined;
  summary: HerdSummary;
}

/**
 * The end-to-end herd drained by 1, 4 and 10 worker processes at once, each its own
 * process with concurrency 10, all on one queue and one dependency: first each on its
 * own, then sharing backpressure through a real Redis (Debian's redis-server, started
 * here). Then the single worker at concurrency 50. One run after the other, so they
 * never share the CPU.
 */
export async function runFleet(emulator: BenchEmulator, config: Config): Promise<FleetRun[]> {
  const redis = await startRedis();
  const client = createClient({ url: redis.url });
  try {
    await client.connect();
    const runs: FleetRun[] = [];
    const sizes = fleetSizes(config.quick);
    const fleets = sizes.flatMap((workers) => (['none', 'redis'] as const).map((store) => ({ workers, concurrency: FLEET_CONCURRENCY, store })));
    const single = config.quick ? [] : [{ workers: 1, concurrency: SINGLE_WORKER_CONCURRENCY, store: 'none' as const }];
    for (const { workers, concurrency, store } of [...fleets, ...single]) {
      const env = { WORKER_HANDLER: 'webhook', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', ...(store === 'redis' ? { WORKER_FLEET_STATE: redis.url } : {}) };
      await client.configResetStat();
      const run = await runHerd(
        emulator,
        `${workers} × ${concurrency}${store === 'redis' ? ', shared' : ''}`,
        (url) => ({ system: 'requeue', concurrency, instances: workers, env: { ...env, WEBHOOK_URL: url } }),
        config.herdCapSeconds,
        config.herdMessages,
      );
      const storeCallsPerMessage = store === 'redis' ? (await commandCount(client)) / config.herdMessages : undefined;
      runs.push({ workers, concurrency, store, storeCallsPerMessage, summary: summarizeHerd([run]) });
      // Each second's accepted/rejected requests: where a peak comes from, in the log of any run.
      progress(`  ${run.policy}: peak ${run.peakAfterRecovery}/s; ${run.timeline.map((s) => `${s.second}:${s.accepted}/${s.rejected}`).join(' ')}`);
    }
    return runs;
  } finally {
    await client.close().catch(() => undefined);
    await redis.stop();
  }
}

/** The fleet table, with the fleet targets of docs/retry-policy.md beside each figure. */
export function fleetTable(runs: readonly FleetRun[], messages: number): string {
  const ideal = idealDrainSeconds(messages);
  const mark = (value: number, limit: number) => `${value.toFixed(2)}${value <= limit ? '' : ' (over ' + limit + ')'}`;
  return markdownTable(runs, [
    { header: 'workers × concurrency', value: (r) => `${r.workers} × ${r.concurrency}` },
    { header: 'shared state', value: (r) => (r.store === 'redis' ? `Redis, ${r.storeCallsPerMessage!.toFixed(2)} commands/msg` : 'none') },
    { header: 'downstream calls per message (≤ 1.2)', value: (r) => mark(r.summary.downstreamRequests.median / messages, 1.2) },
    {
      header: `drain vs ideal (${ideal.toFixed(0)} s; ≤ 1.3×)`,
      value: (r) => `${r.summary.drained ? '' : '> '}${mark(r.summary.drainSeconds.median / ideal, 1.3)}`,
    },
    {
      header: `peak after recovery vs capacity (${HERD.capacityPerSecond}/s; ≤ 1.3×)`,
      value: (r) => mark(r.summary.peakAfterRecovery.median / HERD.capacityPerSecond, 1.3),
    },
    { header: 'dead-lettered (0)', value: (r) => r.summary.deadLettered },
  ]);
}
