import { markdownTable } from '../report.js';
import type { Config } from './document.js';
import type { BenchEmulator } from './driver.js';
import { HERD, runHerd, summarizeHerd, type HerdSummary } from './herd.js';

/** Worker processes sharing one queue and one dependency, as the service scales out. */
export const FLEET_SIZES = [1, 4, 10] as const;
/** Each worker's concurrency in the fleet runs. */
const FLEET_CONCURRENCY = 10;
/** The herd with no fault at all: the outage, then every message at exactly the capacity. */
const IDEAL_DRAIN_SECONDS = HERD.outageMs / 1000 + HERD.messages / HERD.capacityPerSecond;

export interface FleetRun {
  workers: number;
  summary: HerdSummary;
}

/**
 * The end-to-end herd drained by 1, 4 and 10 worker processes at once, each its own
 * process with concurrency 10, all on one queue and one dependency: each learns the
 * outage and the rate on its own. One size after the other, so they never share the CPU.
 */
export async function runFleet(emulator: BenchEmulator, config: Config): Promise<FleetRun[]> {
  const runs: FleetRun[] = [];
  for (const workers of FLEET_SIZES) {
    const label = `${workers} worker${workers === 1 ? '' : 's'}`;
    const run = await runHerd(
      emulator,
      label,
      (url) => ({ system: 'requeue', concurrency: FLEET_CONCURRENCY, instances: workers, env: { WORKER_HANDLER: 'webhook', WEBHOOK_URL: url, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } }),
      config.herdCapSeconds,
      config.herdMessages,
    );
    runs.push({ workers, summary: summarizeHerd([run]) });
  }
  return runs;
}

/** The fleet table, with the fleet targets of docs/retry-policy.md beside each figure. */
export function fleetTable(runs: readonly FleetRun[], messages: number): string {
  const ideal = (IDEAL_DRAIN_SECONDS * messages) / HERD.messages;
  const mark = (value: number, limit: number) => `${value.toFixed(2)}${value <= limit ? '' : ' (over ' + limit + ')'}`;
  return markdownTable(runs, [
    { header: 'workers (concurrency 10 each)', value: (r) => r.workers },
    { header: 'downstream calls per message (≤ 1.2)', value: (r) => mark(r.summary.downstreamRequests.median / messages, 1.2) },
    { header: `drain vs ideal (${ideal.toFixed(0)} s; ≤ 1.3×)`, value: (r) => `${r.summary.drained ? '' : '> '}${mark(r.summary.drainSeconds.median / ideal, 1.3)}` },
    { header: `peak after recovery vs capacity (${HERD.capacityPerSecond}/s; ≤ 1.3×)`, value: (r) => mark(r.summary.peakAfterRecovery.median / HERD.capacityPerSecond, 1.3) },
    { header: 'dead-lettered (0)', value: (r) => r.summary.deadLettered },
  ]);
}
