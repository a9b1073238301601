import { progress } from '../report.js';
import type { Config, Row } from './rows.js';
import type { Backlog, BenchEmulator, SystemUnderTest } from './driver.js';
import { steadyBacklog, steadyTiming } from './feature-rows.js';
import { LARGE_PREFETCH, LARGE_PREFETCH_SCENARIO, LATENCY_BASELINE_SCENARIO, LATENCY_MS, WEBHOOK_BASELINE_SCENARIO } from './latency.js';
import { at, inRounds } from './rounds.js';

/**
 * The latency rows: requeue, the raw loop and sqs-consumer (both handler styles, one
 * instance and five) with every SQS call 15 ms away, a 5 ms handler at 50 and a
 * webhook-like 50 ms handler at 200 (handler-bound at 4,000 messages/s). requeue's
 * own 0 ms rows run in the same rounds as the 15 ms ones, so their ratios pair rounds,
 * and so does requeue with a larger prefetch.
 */
const latencyScenarios = (): Array<{ scenario: string; simulate: Backlog['simulate']; suts: SystemUnderTest[] }> => [
  {
    scenario: `${LATENCY_MS} ms SQS, 5 ms I/O`,
    simulate: { outcome: 'ok', durationMs: 5 },
    suts: [
      { system: 'requeue', concurrency: 50, scenario: LATENCY_BASELINE_SCENARIO, backlog: { latencyMs: 0 } },
      { system: 'requeue', concurrency: 50, scenario: LARGE_PREFETCH_SCENARIO, env: { WORKER_PREFETCH: String(LARGE_PREFETCH) } },
      ...at(50, 'requeue', 'raw-sdk-loop'),
      ...at(10, 'sqs-consumer', 'sqs-consumer-batch'),
      ...at(50, 'sqs-consumer', 'sqs-consumer-batch'),
    ],
  },
  {
    scenario: `${LATENCY_MS} ms SQS, 50 ms I/O`,
    simulate: { outcome: 'ok', durationMs: 50 },
    suts: [
      { system: 'requeue', concurrency: 200, scenario: WEBHOOK_BASELINE_SCENARIO, backlog: { latencyMs: 0 } },
      ...at(200, 'requeue', 'raw-sdk-loop', 'sqs-consumer', 'sqs-consumer-batch'),
    ],
  },
];

/**
 * Every latency scenario in `config.runs` rounds, timed like the steady rows (after 2 s
 * of warm-up, for 3 s): the targets compare a worker at 15 ms with its own 0 ms row
 * within 10%, and one of the happy path's 1.4 s windows spreads by ±20% (the 15 ms row's
 * rounds read 3,033-4,403 messages/s in one run). The worker a service runs has also
 * been running for minutes, well past V8's first compiling.
 */
export async function latencyRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  const latency: Row[] = [];
  const count = steadyBacklog(config);
  for (const { scenario, simulate, suts } of latencyScenarios()) {
    progress(`${scenario}, ${count.toLocaleString('en-US')} messages, ${config.runs} run(s) each`);
    latency.push(...(await inRounds(emulator, scenario, suts, { count, simulate, latencyMs: LATENCY_MS }, config, steadyTiming(config))));
  }
  return latency;
}
