import { measure, summarizeRuns, type BenchEmulator, type SystemUnderTest } from './driver.js';
import { startDownstream } from './downstream.js';

export interface HerdRun {
  policy: string;
  downstreamRequests: number;
  /** From the start of the outage: the wait through it is part of the drain. */
  drainSeconds: number;
  peakAfterRecovery: number;
  deadLettered: number;
  /** False when the run hit its cap: requests and drain are then lower bounds. */
  drained: boolean;
  /** Requests per second since the outage began. */
  timeline: Array<{ second: number; accepted: number; rejected: number }>;
}

type Spread = ReturnType<typeof summarizeRuns>;

/** One policy's runs: medians and ranges, and the median run's timeline for the chart. */
export interface HerdSummary {
  policy: string;
  runs: number;
  downstreamRequests: Spread;
  drainSeconds: Spread;
  peakAfterRecovery: Spread;
  deadLettered: number;
  drained: boolean;
  timeline: HerdRun['timeline'];
}

export const HERD = { messages: 2000, outageMs: 10_000, capacityPerSecond: 100 };

/** The herd of `messages` with no fault at all: the outage, then every message at exactly the capacity. */
export function idealDrainSeconds(messages: number): number {
  return HERD.outageMs / 1000 + messages / HERD.capacityPerSecond;
}

/**
 * The end-to-end herd: 2,000 webhook messages at once against a dependency that is down
 * for 10 s, then admits 100 requests/s and answers 429 (Retry-After: 1) beyond that. Each
 * run has its own queue and its own downstream, so runs may go side by side.
 */
export async function runHerd(
  emulator: BenchEmulator,
  policy: string,
  sut: (url: string) => SystemUnderTest,
  capSeconds: number,
  messages = HERD.messages,
): Promise<HerdRun> {
  const downstream = await startDownstream({ outageMs: HERD.outageMs, capacityPerSecond: HERD.capacityPerSecond });
  try {
    const measurement = await measure(emulator, sut(downstream.url), { count: messages }, capSeconds, {
      onStart: () => downstream.open(),
      clockFromStart: true,
      loadWhenReady: true,
    });
    const timeline = downstream.timeline();
    const recovery = Math.ceil(HERD.outageMs / 1000);
    return {
      policy,
      downstreamRequests: downstream.total(),
      drainSeconds: measurement.secondsSinceStart,
      peakAfterRecovery: Math.max(0, ...timeline.filter((s) => s.second >= recovery).map((s) => s.accepted + s.rejected)),
      deadLettered: measurement.deadLettered,
      drained: measurement.drained,
      timeline,
    };
  } finally {
    await downstream.close();
  }
}

export function summarizeHerd(runs: readonly HerdRun[]): HerdSummary {
  const requests = summarizeRuns(runs.map((r) => r.downstreamRequests));
  const median = runs.reduce((best, run) =>
    Math.abs(run.downstreamRequests - requests.median) < Math.abs(best.downstreamRequests - requests.median) ? run : best,
  );
  return {
    policy: median.policy,
    runs: runs.length,
    downstreamRequests: requests,
    drainSeconds: summarizeRuns(runs.map((r) => r.drainSeconds)),
    peakAfterRecovery: summarizeRuns(runs.map((r) => r.peakAfterRecovery)),
    deadLettered: Math.max(...runs.map((r) => r.deadLettered)),
    drained: runs.every((r) => r.drained),
    timeline: median.timeline,
  };
}
