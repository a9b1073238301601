import type { Backlog, BenchEmulator, SystemUnderTest } from './driver.js';
import { progress } from '../report.js';
import type { Config, Row } from './rows.js';
import { HAPPY_HANDLERS, inRounds } from './rounds.js';

const RETRY_ONCE: Backlog['simulate'] = { outcome: 'transient', failTimes: 1 };
/** requeue's retry path at the bench's 0-1 s delay: fixed 1 s with full jitter. */
const REQUEUE_RETRY_POLICY = JSON.stringify({
  jitter: { type: 'full' },
  types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 }, maxDelayMs: 1000 } },
});
/**
 * The retry path measures retries, so requeue runs it with backpressure off: with every
 * first call failing, its circuit breaker would (rightly) read an outage and defer the
 * backlog instead. docs/benchmarks.md explains; the herd measures the breaker.
 */
export const retryPathSystems = (config: Config): SystemUnderTest[] => [
  { system: 'requeue-no-backpressure', concurrency: 50, env: { RETRY_POLICY: REQUEUE_RETRY_POLICY } },
  { system: 'raw-sdk-loop', concurrency: 50 },
  { system: 'sqs-consumer', concurrency: 50 },
  { system: 'seed-reference', concurrency: 1, backlog: { count: config.retrySeedBacklog, warmupCount: config.retrySeedBacklog / 10 } },
];

export const HAPPY_SYSTEMS: SystemUnderTest[] = [
  { system: 'requeue', concurrency: 10 },
  { system: 'raw-sdk-loop', concurrency: 10 },
  { system: 'sqs-consumer', concurrency: 10 },
  { system: 'sqs-consumer-batch', concurrency: 10 },
  { system: 'requeue', concurrency: 50 },
  { system: 'requeue-no-backpressure', concurrency: 50 },
  { system: 'requeue-no-schema', concurrency: 50 },
  { system: 'raw-sdk-loop', concurrency: 50 },
  { system: 'sqs-consumer', concurrency: 50 },
  { system: 'sqs-consumer-batch', concurrency: 50 },
  { system: 'seed-reference', concurrency: 1 },
];

/**
 * The retry path, from its backlog's load to its last completion after a warm-up backlog
 * of the same kind: the emulator hands out the oldest messages first, so timing from the
 * first completions would time the copies alone, a happy path in disguise. The backlog is
 * large enough that the copies' pass outlasts the 1 s delay of the last ones.
 */
export function retryRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  progress(`retry path: every message fails once (retry after 0-1 s), ${config.retryBacklog.toLocaleString('en-US')} messages`);
  return inRounds(
    emulator,
    'retry path',
    retryPathSystems(config),
    { count: config.retryBacklog, warmupCount: config.retryWarmupCount, simulate: RETRY_ONCE },
    config,
    { capSeconds: config.retryCapSeconds, warmupSeconds: 0 },
  );
}

/** The happy path's rows: both handlers, every happy system, in rounds. */
export async function happyRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  const happy: Row[] = [];
  for (const [handler, simulate] of HAPPY_HANDLERS) {
    progress(`happy path, ${handler} handler, ${config.backlog.toLocaleString('en-US')} messages, ${config.runs} run(s) each`);
    happy.push(...(await inRounds(emulator, `happy ${handler}`, HAPPY_SYSTEMS, { count: config.backlog, simulate }, config)));
  }
  return happy;
}
