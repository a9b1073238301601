import { measure, type BenchEmulator } from './driver.js';

export interface MemoryRun {
  messages: number;
  passes: number;
  startMb: number;
  peakMb: number;
  endMb: number;
  /** RSS when each pass of the backlog had drained. */
  passEndMb: number[];
  /** Least-squares slope over the last pass: the run once warmed up. */
  slopeMbPerMinute: number;
  messagesPerSecond: number;
  drained: boolean;
}

/**
 * Memory under a standing backlog: requeue @50 drains `messages` at 1 ms each, `passes`
 * times in one process. The passes before the last are warm-up (V8 sizes its heap to the
 * load, in steps, within the first one or two); a leak shows as RSS still rising over the
 * last pass, which processes the same work again.
 */
export async function runMemory(emulator: BenchEmulator, messages: number, passes: number): Promise<MemoryRun> {
  const run = await measure(emulator, { system: 'requeue', concurrency: 50 }, { count: messages, passes, simulate: { outcome: 'ok', durationMs: 1 } }, 300);
  const rssAt = (second: number) => run.rss.findLast(([at]) => at <= second)?.[1] ?? run.peakRssMb;
  const warm = run.passEndedAt.at(-2) ?? 0;
  return {
    messages,
    passes,
    startMb: run.rss[0]?.[1] ?? 0,
    peakMb: run.peakRssMb,
    endMb: run.rss.at(-1)?.[1] ?? 0,
    passEndMb: run.passEndedAt.map(rssAt),
    slopeMbPerMinute: slopeMbPerMinute(run.rss.filter(([at]) => at >= warm)),
    messagesPerSecond: run.messagesPerSecond,
    drained: run.drained,
  };
}

/** Least-squares slope of [seconds, MB] samples, in MB per minute. */
export function slopeMbPerMinute(samples: ReadonlyArray<readonly [number, number]>): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const meanX = samples.reduce((s, [x]) => s + x, 0) / n;
  const meanY = samples.reduce((s, [, y]) => s + y, 0) / n;
  const num = samples.reduce((s, [x, y]) => s + (x - meanX) * (y - meanY), 0);
  const den = samples.reduce((s, [x]) => s + (x - meanX) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}
