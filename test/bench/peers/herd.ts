import { measure, type BenchEmulator, type Measurement, type SystemUnderTest } from './driver.js';
import { startDownstream } from './downstream.js';

export interface HerdRun {
  policy: string;
  measurement: Measurement;
  downstreamRequests: number;
  drainSeconds: number;
  peakAfterRecovery: number;
  deadLettered: number;
  /** Requests per second since the outage began. */
  timeline: Array<{ second: number; accepted: number; rejected: number }>;
}

export const HERD = { messages: 2000, outageMs: 10_000, capacityPerSecond: 100 };

/**
 * The end-to-end herd: 2,000 webhook messages at once against a dependency that is down
 * for 10 s, then admits 100 requests/s and answers 429 (Retry-After: 1) beyond that.
 */
export async function runHerd(emulator: BenchEmulator, policy: string, sut: (url: string) => SystemUnderTest, capSeconds: number, messages = HERD.messages): Promise<HerdRun> {
  const downstream = await startDownstream({ outageMs: HERD.outageMs, capacityPerSecond: HERD.capacityPerSecond });
  try {
    const measurement = await measure(emulator, sut(downstream.url), { count: messages }, capSeconds, { onStart: () => downstream.open() });
    const timeline = downstream.timeline();
    const recovery = Math.ceil(HERD.outageMs / 1000);
    return {
      policy,
      measurement,
      downstreamRequests: downstream.total(),
      // From the start of the outage: the wait through it is part of the drain.
      drainSeconds: measurement.secondsSinceStart,
      peakAfterRecovery: Math.max(0, ...timeline.filter((s) => s.second >= recovery).map((s) => s.accepted + s.rejected)),
      deadLettered: measurement.deadLettered,
      timeline,
    };
  } finally {
    await downstream.close();
  }
}
