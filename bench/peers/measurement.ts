import { existsSync, readFileSync } from 'node:fs';
import type { BenchEmulator } from './bench-emulator.js';

export interface Measurement {
  processed: number;
  /** The throughput clock: from the end of the warm-up. */
  seconds: number;
  /** From `onStart` (the herd's clock: the outage begins there). */
  secondsSinceStart: number;
  messagesPerSecond: number;
  /** SQS calls over the timed window (the whole run when it has none), and per message processed in it. */
  sqsCalls: number;
  callsPerMessage: number;
  callsByAction: Record<string, number>;
  /** The messages processed while those calls were counted. */
  callsCountedOver: number;
  peakRssMb: number;
  /** The system's CPU time per 1,000 messages, from ready to the end of the run. */
  cpuMsPerThousand: number;
  /** [seconds since start, MB] every sample. */
  rss: Array<[number, number]>;
  drained: boolean;
  /** Seconds since start at which each pass of the backlog was drained. */
  passEndedAt: number[];
  /** Messages in the DLQ at the end. */
  deadLettered: number;
}

export function rssMb(pid: number): number | undefined {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return undefined;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(path, 'utf8'));
  return match ? Number(match[1]) / 1024 : undefined;
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks at 100 Hz). */
export function cpuSeconds(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  // Fields after the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The start of a run's timed window. Calls are counted from there, as the throughput is:
 * counted from the system's start, the receives that fill its prefetch at first would be
 * charged to the messages processed, though at the end of the run they are still held
 * (up to `maxInFlight + 2 × prefetch` for requeue), and a system that holds more would
 * read as making more calls per message than it does in a standing workload. A run
 * warmed up on a first backlog starts its window with that one drained and nothing
 * held, so what it holds at the end still counts against it.
 */
export interface TimedWindow {
  at: number;
  processed: number;
  cpu: number;
  calls: Record<string, number>;
}

export interface RunRecord {
  emulator: BenchEmulator;
  /** The queue's name; its DLQ is `<name>-dlq`. */
  name: string;
  pid: number;
  spawnedAt: number;
  capSeconds: number;
  cpuAtStart: number;
  /** Where the throughput clock started, if it did, with the SQS calls counted by then. */
  window: TimedWindow | undefined;
  firstDoneAt: number | undefined;
  loaded: number;
  left: number;
  rss: Array<[number, number]>;
  passEndedAt: number[];
}

/** The figures of one run, read as it ends: throughput over the timed window, calls at the proxy, CPU from /proc. */
export async function summarizeMeasurement(run: RunRecord): Promise<Measurement> {
  const { emulator, name, capSeconds, cpuAtStart, window, firstDoneAt, loaded, left, rss } = run;
  const endedAt = Date.now();
  const processed = loaded - left;
  // Drained within the warm-up (or never started): time the whole run instead.
  const timed = window ?? { at: firstDoneAt ?? endedAt - capSeconds * 1000, processed: 0, cpu: cpuAtStart, calls: {} };
  const seconds = Math.max(0.001, (endedAt - timed.at) / 1000);
  const timedProcessed = processed - timed.processed;
  const cpuUsed = (cpuSeconds(run.pid) ?? timed.cpu) - timed.cpu;
  const callsByAction = callsSince(await callCounts(emulator, name), timed.calls);
  const dlqDepth = await emulator.control<{ ready: number; delayed: number; inflight: number }>('depth', { queue: `${name}-dlq` });
  const sqsCalls = Object.values(callsByAction).reduce((a, b) => a + b, 0);
  return {
    processed,
    seconds,
    secondsSinceStart: (endedAt - run.spawnedAt) / 1000,
    messagesPerSecond: timedProcessed / seconds,
    sqsCalls,
    callsPerMessage: timedProcessed > 0 ? sqsCalls / timedProcessed : Infinity,
    callsByAction,
    callsCountedOver: timedProcessed,
    peakRssMb: Math.max(0, ...rss.map(([, mb]) => mb)),
    cpuMsPerThousand: timedProcessed > 0 ? (cpuUsed * 1000 * 1000) / timedProcessed : Infinity,
    rss,
    drained: left === 0,
    passEndedAt: run.passEndedAt,
    deadLettered: dlqDepth.ready + dlqDepth.inflight + dlqDepth.delayed,
  };
}

/** SQS calls so far to the queue `name` and its DLQ, by action. */
export async function callCounts(emulator: BenchEmulator, name: string): Promise<Record<string, number>> {
  const total: Record<string, number> = {};
  for (const queue of [name, `${name}-dlq`]) {
    for (const [action, count] of Object.entries(await emulator.control<Record<string, number>>('counts', { queue })))
      total[action] = (total[action] ?? 0) + count;
  }
  return total;
}

/** The calls in `now` made after `then`, by action. */
export function callsSince(now: Record<string, number>, then: Record<string, number>): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const [action, count] of Object.entries(now)) if (count > (then[action] ?? 0)) calls[action] = count - (then[action] ?? 0);
  return calls;
}

/**
 * SQS calls per message for each API action, pooled over repeated runs (every run's
 * calls over every run's messages), so a short run weighs no more than its share.
 */
export function callsPerMessageByAction(runs: readonly Pick<Measurement, 'callsByAction' | 'callsCountedOver'>[]): Record<string, number> {
  const messages = runs.reduce((sum, run) => sum + run.callsCountedOver, 0);
  const calls: Record<string, number> = {};
  for (const run of runs) for (const [action, count] of Object.entries(run.callsByAction)) calls[action] = (calls[action] ?? 0) + count;
  return Object.fromEntries(Object.entries(calls).map(([action, count]) => [action, messages > 0 ? count / messages : Infinity]));
}

/** Median and spread (max - min) of repeated runs. */
export function summarizeRuns(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}
