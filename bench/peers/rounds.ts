import { progress } from '../report.js';
import type { Config, Row } from './document.js';
import { callsPerMessageByAction, measure, summarizeRuns, SYSTEM_LABELS, type Backlog, type BenchEmulator, type Measurement, type SystemName, type SystemUnderTest } from './driver.js';

/** These systems, each at this concurrency. */
export const at = (concurrency: number, ...systems: SystemName[]): SystemUnderTest[] => systems.map((system) => ({ system, concurrency }));

/** The two happy-path handlers every happy row runs: no work, and 5 ms of I/O. */
export const HAPPY_HANDLERS = [
  ['no-op', undefined],
  ['5 ms I/O', { outcome: 'ok', durationMs: 5 }],
] as const;

/**
 * Every system `runs` times, in rounds (A B C, A B C, ...) rather than one system's runs
 * back to back: a slow spell of the machine then lands on every system alike instead of
 * on one system's whole row, which steadies the ratios between them.
 */
export async function inRounds(
  emulator: BenchEmulator,
  scenario: string,
  suts: readonly SystemUnderTest[],
  backlog: Backlog,
  config: Config,
  timing: { capSeconds: number; warmupSeconds: number } = { capSeconds: config.capSeconds, warmupSeconds: config.warmupSeconds },
): Promise<Row[]> {
  const results: Measurement[][] = suts.map(() => []);
  for (let run = 0; run < config.runs; run++) {
    for (const [i, sut] of suts.entries()) results[i]!.push(await measure(emulator, sut, { ...backlog, ...sut.backlog }, timing.capSeconds, timing));
  }
  return suts.map((sut, i) => {
    const runs = results[i]!;
    const row: Row = {
      scenario,
      system: sut.system,
      concurrency: sut.concurrency,
      backlog: sut.backlog?.count ?? backlog.count,
      messagesPerSecond: summarizeRuns(runs.map((r) => r.messagesPerSecond)),
      callsPerMessage: summarizeRuns(runs.map((r) => r.callsPerMessage)).median,
      callsPerMessageByAction: callsPerMessageByAction(runs),
      cpuMsPerThousand: summarizeRuns(runs.map((r) => r.cpuMsPerThousand)).median,
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
      processed: runs.reduce((sum, r) => sum + r.processed, 0),
    };
    progress(`  ${scenario}: ${SYSTEM_LABELS[sut.system]} @${sut.concurrency}: ${row.messagesPerSecond.median.toFixed(0)} msg/s, ${row.callsPerMessage.toFixed(3)} calls/msg`);
    return row;
  });
}
