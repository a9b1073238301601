import { progress } from '../report.js';
import type { Config, Row } from './rows.js';
import type { BenchEmulator, SystemName, SystemUnderTest } from './driver.js';
import { inRounds } from './rounds.js';

/** The bulk sinks the batch rows call, by scenario: a time per call, and per message of the call. */
export const BULK_SINKS = [
  { scenario: 'bulk sink, 5 ms per call', sinkMs: '5' },
  { scenario: 'bulk sink, 5 ms + 0.5 ms per message', sinkMs: '5,0.5' },
] as const;

/** The batch handlers at 50: requeue's, five sqs-consumers' `handleMessageBatch`, and the raw loop's, each calling the sink once per batch. */
function batchSystems(sinkMs: string): SystemUnderTest[] {
  const peer = (system: SystemName): SystemUnderTest => ({ system, concurrency: 50, env: { BENCH_BULK_SINK_MS: sinkMs } });
  return [{ system: 'requeue-batch', concurrency: 50, env: { SIMULATION_BULK_SINK_MS: sinkMs } }, peer('sqs-consumer-batch'), peer('raw-sdk-loop')];
}

/**
 * Each bulk sink drained by the batch handlers in rounds, as the happy rows are: every
 * message succeeds, and each batch costs one call of the sink, however many messages it holds.
 */
export async function batchRows(emulator: BenchEmulator, config: Config): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { scenario, sinkMs } of BULK_SINKS) {
    progress(`${scenario}, ${config.backlog.toLocaleString('en-US')} messages, ${config.runs} run(s) each`);
    rows.push(...(await inRounds(emulator, scenario, batchSystems(sinkMs), { count: config.backlog, simulate: { outcome: 'ok' } }, config)));
  }
  return rows;
}
