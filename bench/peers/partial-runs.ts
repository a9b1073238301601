import { targets } from './targets.js';
import { batchRows } from './batch-rows.js';
import { startBenchEmulator, type BenchEmulator } from './driver.js';
import { featureCostRows, idempotencyRun, tracingRows } from './feature-rows.js';
import { latencyRows } from './latency-rows.js';
import type { Config } from './rows.js';
import { inRounds } from './rounds.js';
import { HAPPY_SYSTEMS, happyRows, retryRows } from './scenarios.js';

/** Runs `measure` against a fresh emulator, and prints its rows with the targets they reach as JSON. */
async function partialRun(measure: (emulator: BenchEmulator) => Promise<Record<string, unknown>>): Promise<void> {
  const emulator = await startBenchEmulator();
  try {
    process.stdout.write(`${JSON.stringify(await measure(emulator), null, 2)}\n`);
  } finally {
    await emulator.stop();
  }
}

/** The targets a partial run's rows reach: the other kinds of rows are absent. */
const NONE = { happy: [], latency: [], retry: [], memory: undefined, herd: [] };

/**
 * `npm run bench -- --latency`: only the latency scenarios (requeue's 0 ms row among
 * them), with their targets: for tuning the receive path in minutes.
 */
export function latencyOnly(config: Config): Promise<void> {
  return partialRun(async (emulator) => {
    const latency = await latencyRows(emulator, config);
    return { latency, targets: targets({ ...NONE, latency }, config.herdMessages) };
  });
}

/** `npm run bench -- --features`: only the feature-cost, tracing and idempotency rows, and their targets. */
export function featuresOnly(config: Config): Promise<void> {
  return partialRun(async (emulator) => {
    const featureCost = await featureCostRows(emulator, config);
    const tracing = await tracingRows(emulator, config);
    const idempotency = await idempotencyRun(emulator, config);
    return { featureCost, tracing, idempotency, targets: targets({ ...NONE, featureCost, tracing, idempotency }, config.herdMessages) };
  });
}

/**
 * `npm run bench -- --retry`: the retry path and, in the same rounds' emulator, the happy
 * no-op rows its ratio is read against: for tuning the retry path in minutes.
 */
export function retryOnly(config: Config): Promise<void> {
  return partialRun(async (emulator) => {
    const systems = HAPPY_SYSTEMS.filter((s) => s.concurrency === 50 && ['requeue-no-backpressure', 'raw-sdk-loop'].includes(s.system));
    const happy = await inRounds(emulator, 'happy no-op', systems, { count: config.backlog }, config);
    const retry = await retryRows(emulator, config);
    return { happy, retry, targets: targets({ ...NONE, happy, retry }, config.herdMessages) };
  });
}

/** `npm run bench -- --batch`: only the batch handlers' rows on their bulk sinks, and their targets. */
export function batchOnly(config: Config): Promise<void> {
  return partialRun(async (emulator) => {
    const batch = await batchRows(emulator, config);
    return { batch, targets: targets({ ...NONE, batch }, config.herdMessages) };
  });
}

/** `npm run bench -- --happy`: only the happy path's rows (both handlers, every system) and their targets. */
export function happyOnly(config: Config): Promise<void> {
  return partialRun(async (emulator) => {
    const happy = await happyRows(emulator, config);
    return { happy, targets: targets({ ...NONE, happy }, config.herdMessages) };
  });
}
