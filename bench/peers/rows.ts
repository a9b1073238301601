import type { SystemName } from './driver.js';

export interface Config {
  quick: boolean;
  runs: number;
  backlog: number;
  /** The throughput clock starts this long after the first 1% of the backlog is done. */
  warmupSeconds: number;
  capSeconds: number;
  retryBacklog: number;
  /** Fail-once messages drained before the retry path's clock starts (its warm-up). */
  retryWarmupCount: number;
  /** The seed reference's own retry backlog: at its pace the shared one would take half a minute a run. */
  retrySeedBacklog: number;
  /** A safety stop for the retry path, from the backlog's load: every system drains well within it. */
  retryCapSeconds: number;
  memoryBacklog: number;
  memoryPasses: number;
  /** How long an idle worker is watched for its SQS calls. */
  idleSeconds: number;
  herdMessages: number;
  /** The herd's baselines take minutes to drain; past this they are reported as lower bounds. */
  herdCapSeconds: number;
  /** Where the emulator ran beside the systems (`CpuLayout.description`); absent in documents saved before it was pinned. */
  cpuLayout?: string;
}

export interface Row {
  scenario: string;
  system: SystemName;
  concurrency: number;
  /** Messages in the timed backlog. */
  backlog: number;
  messagesPerSecond: { median: number; min: number; max: number };
  /** Messages a second in each round, in round order: a ratio target pairs two rows' rounds. Absent from documents saved before. */
  perRound?: number[];
  callsPerMessage: number;
  /** The same, split by SQS API action (ReceiveMessage, DeleteMessageBatch...), pooled over the runs. */
  callsPerMessageByAction: Record<string, number>;
  /** The system's own CPU time per 1,000 messages: its cost, apart from the emulator's. */
  cpuMsPerThousand: number;
  peakRssMb: number;
  /** Messages handled over all the row's runs, warm-up included. */
  processed?: number;
  /**
   * Messages in the DLQ after each run, summed over the runs: on the happy path, only the
   * queue's redrive puts any there. Absent from documents saved before.
   */
  deadLettered?: number;
}

/** The herd's three runs: our defaults, the same with backpressure off, and the seed's worker. */
export const HERD_POLICIES = {
  backpressure: 'requeue defaults (backpressure on)',
  plain: 'requeue, backpressure off (retry policy alone)',
  seed: 'seed reference loop',
} as const;

/** requeue with and without idempotency on Redis, and the Redis commands per message. */
export interface IdempotencyRun {
  rows: Row[];
  storeCallsPerMessage: number;
}

export interface Target {
  measure: string;
  target: string;
  measured: string;
  met: boolean;
}
