import { progress } from '../report.js';
import type { Config, Row } from './rows.js';
import {
  callsPerMessageByAction,
  measure,
  summarizeRuns,
  SYSTEM_LABELS,
  type Backlog,
  type BenchEmulator,
  type SystemName,
  type SystemUnderTest,
} from './driver.js';

/** These systems, each at this concurrency. */
export const at = (concurrency: number, ...systems: SystemName[]): SystemUnderTest[] => systems.map((system) => ({ system, concurrency }));

/** The two happy-path handlers every happy row runs: no work, and 5 ms of I/O. */
export const HAPPY_HANDLERS = [
  ['no-op', undefined],
  ['5 ms I/O', { outcome: 'ok', durationMs: 5 }],
] as const;

/**
 * Every system `runs` times, in rounds rather than one system's runs back to back: a slow
 * spell of the machine then lands on every system alike instead of on one system's whole
 * row. Each round starts one system further on (A B C, B C A, C A B...), so no system is
 * always the first after a pause or the last of a round. The ratio targets pair the rows'
 * rounds (`pairedRatio`).
 */
export async function inRounds(
  emulator: BenchEmulator,
  scenario: string,
  suts: readonly SystemUnderTest[],
  backlog: Backlog,
  config: Config,
  timing: { capSeconds: number; warmupSeconds: number } = { capSeconds: config.capSeconds, warmupSeconds: config.warmupSeconds },
): Promise<Row[]> {
  const results = await rotatingRounds(suts.length, config.runs, (i) =>
    measure(emulator, suts[i]!, { ...backlog, ...suts[i]!.backlog }, timing.capSeconds, timing),
  );
  return suts.map((sut, i) => {
    const runs = results[i]!;
    const row: Row = {
      scenario: sut.scenario ?? scenario,
      system: sut.system,
      concurrency: sut.concurrency,
      backlog: sut.backlog?.count ?? backlog.count,
      messagesPerSecond: summarizeRuns(runs.map((r) => r.messagesPerSecond)),
      perRound: runs.map((r) => r.messagesPerSecond),
      callsPerMessage: summarizeRuns(runs.map((r) => r.callsPerMessage)).median,
      callsPerMessageByAction: callsPerMessageByAction(runs),
      cpuMsPerThousand: summarizeRuns(runs.map((r) => r.cpuMsPerThousand)).median,
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
      processed: runs.reduce((sum, r) => sum + r.processed, 0),
      deadLettered: runs.reduce((sum, r) => sum + r.deadLettered, 0),
    };
    progress(
      `  ${row.scenario}: ${SYSTEM_LABELS[sut.system]} @${sut.concurrency}: ${row.messagesPerSecond.median.toFixed(0)} msg/s, ${row.callsPerMessage.toFixed(3)} calls/msg`,
    );
    return row;
  });
}

/**
 * `run(i)` for each of `count` items, `rounds` times, each round starting one item further
 * on (A B C, B C A, C A B...), one at a time; the results by item, in round order.
 */
export async function rotatingRounds<R>(count: number, rounds: number, run: (i: number, round: number) => Promise<R>): Promise<R[][]> {
  const results: R[][] = Array.from({ length: count }, () => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < count; k++) {
      const i = (round + k) % count;
      results[i]!.push(await run(i, round));
    }
  }
  return results;
}

/**
 * Row `a` against row `b`: the median of their rounds' ratios when both kept their rounds
 * (each pair ran minutes apart at most, so a slow spell of the machine divides out),
 * else the ratio of their medians.
 */
export function pairedRatio(a: Row | undefined, b: Row | undefined): number {
  if (!a || !b) return NaN;
  const rounds = a.perRound?.length === b.perRound?.length ? a.perRound?.map((rate, i) => rate / b.perRound![i]!) : undefined;
  return rounds && rounds.length > 0 ? summarizeRuns(rounds).median : a.messagesPerSecond.median / b.messagesPerSecond.median;
}
