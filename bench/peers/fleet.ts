import { markdownTable } from '../report.js';
import type { Config } from './document.js';
import type { BenchEmulator } from './driver.js';
import { HERD, runHerd, summarizeHerd, type HerdSummary } from './herd.js';

/** Worker processes sharing one queue and one dependency, as the service scales out. */
export const FLEET_SIZES = [1, 4, 10] as const;
/** Each worker's concurrency in the fleet runs. */
const FLEET_CONCURRENCY = 10;
/** The single worker of the end-to-end herd above, run again beside the fleets so that one run shows whether a change helps a fleet at its expense. */
const SINGLE_WORKER_CONCURRENCY = 50;
/** The herd with no fault at all: the outage, then every message at exactly the capacity. */
const IDEAL_DRAIN_SECONDS = HERD.outageMs / 1000 + HERD.messages / HERD.capacityPerSecond;

export interface FleetRun {
  workers: number;
  concurrency: number;
  summary: HerdSummary;
}

/**
 * The end-to-end herd drained by 1, 4 and 10 worker processes at once, each its own
 * process with concurrency 10, all on one queue and one dependency: each learns the
 * outage and the rate on its own. Then the single worker at concurrency 50. One size
 * after the other, so they never share the CPU.
 */
export async function runFleet(emulator: BenchEmulator, config: Config): Promise<FleetRun[]> {
  const runs: FleetRun[] = [];
  const sizes = [...FLEET_SIZES.map((workers) => ({ workers, concurrency: FLEET_CONCURRENCY })), { workers: 1, concurrency: SINGLE_WORKER_CONCURRENCY }];
  for (const { workers, concurrency } of sizes) {
    const label = `${workers} × ${concurrency}`;
    const run = await runHerd(
      emulator,
      label,
      (url) => ({ system: 'requeue', concurrency, instances: workers, env: { WORKER_HANDLER: 'webhook', WEBHOOK_URL: url, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } }),
      config.herdCapSeconds,
      config.herdMessages,
    );
    runs.push({ workers, concurrency, summary: summarizeHerd([run]) });
  }
  return runs;
}

/** The fleet table, with the fleet targets of docs/retry-policy.md beside each figure. */
export function fleetTable(runs: readonly FleetRun[], messages: number): string {
  const ideal = (IDEAL_DRAIN_SECONDS * messages) / HERD.messages;
  const mark = (value: number, limit: number) => `${value.toFixed(2)}${value <= limit ? '' : ' (over ' + limit + ')'}`;
  return markdownTable(runs, [
    { header: 'workers × concurrency', value: (r) => `${r.workers} × ${r.concurrency}` },
    { header: 'downstream calls per message (≤ 1.2)', value: (r) => mark(r.summary.downstreamRequests.median / messages, 1.2) },
    { header: `drain vs ideal (${ideal.toFixed(0)} s; ≤ 1.3×)`, value: (r) => `${r.summary.drained ? '' : '> '}${mark(r.summary.drainSeconds.median / ideal, 1.3)}` },
    { header: `peak after recovery vs capacity (${HERD.capacityPerSecond}/s; ≤ 1.3×)`, value: (r) => mark(r.summary.peakAfterRecovery.median / HERD.capacityPerSecond, 1.3) },
    { header: 'dead-lettered (0)', value: (r) => r.summary.deadLettered },
  ]);
}
