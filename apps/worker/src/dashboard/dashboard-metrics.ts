import type { WorkerMetrics } from '@requeue/sqs';

/** One second of worker activity. */
export interface SecondOfActivity {
  /** Epoch seconds. */
  second: number;
  succeeded: number;
  retried: Record<string, number>;
  deadLettered: Record<string, number>;
}

export interface ActivitySnapshot {
  seconds: SecondOfActivity[];
  totals: { received: number; succeeded: number; retried: number; deadLettered: number; deferred: number };
  /**
   * Failures that went back to the queue, by error type: retries (an attempt used) and
   * deferrals after the handler ran (the attempt kept), counted as the demo's report counts them.
   */
  byErrorType: Record<string, { retries: number; deferrals: number }>;
  /** Retry delays chosen, by bucket: `0`, `1`, `2-3`, `4-7`, ... seconds. */
  delayHistogram: Array<{ bucket: string; count: number }>;
}

/** Delay buckets by powers of two, up to SQS's 900 s maximum. */
const DELAY_BUCKETS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const bucketLabel = (i: number) => {
  const low = DELAY_BUCKETS[i]!;
  const high = i + 1 < DELAY_BUCKETS.length ? DELAY_BUCKETS[i + 1]! - 1 : 900;
  return low >= high ? String(low) : `${low}-${high}`;
};

/**
 * The local dashboard's view of the worker: per-second counts for the last few minutes
 * and a histogram of retry delays, kept in memory (a fixed ring, so memory stays flat).
 */
export class DashboardMetrics implements WorkerMetrics {
  private readonly ring: SecondOfActivity[] = [];
  private readonly delayCounts = DELAY_BUCKETS.map(() => 0);
  private readonly totals = { received: 0, succeeded: 0, retried: 0, deadLettered: 0, deferred: 0 };
  private readonly byErrorType: ActivitySnapshot['byErrorType'] = {};

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keepSeconds = 300,
  ) {}

  received(count: number): void {
    this.totals.received += count;
  }

  succeeded(): void {
    this.totals.succeeded++;
    this.current().succeeded++;
  }

  failed(): void {}

  retried(errorType: string, delaySeconds: number): void {
    this.totals.retried++;
    this.ofType(errorType).retries++;
    const retried = this.current().retried;
    retried[errorType] = (retried[errorType] ?? 0) + 1;
    let bucket = 0;
    while (bucket + 1 < DELAY_BUCKETS.length && delaySeconds >= DELAY_BUCKETS[bucket + 1]!) bucket++;
    this.delayCounts[bucket]!++;
  }

  deadLettered(reason: string): void {
    this.totals.deadLettered++;
    const dead = this.current().deadLettered;
    dead[reason] = (dead[reason] ?? 0) + 1;
  }

  duplicateRisk(): void {}

  firstFailure(): void {}

  deferred(_cause: string, errorType?: string): void {
    this.totals.deferred++;
    if (errorType !== undefined) this.ofType(errorType).deferrals++;
  }

  private ofType(errorType: string): { retries: number; deferrals: number } {
    return (this.byErrorType[errorType] ??= { retries: 0, deferrals: 0 });
  }

  dependencyStates(): void {}

  async flush(): Promise<void> {}

  /** The last `keepSeconds`, one entry per second including idle ones, oldest first. */
  snapshot(): ActivitySnapshot {
    const nowSecond = Math.floor(this.now() / 1000);
    const bySecond = new Map(this.ring.map((entry) => [entry.second, entry]));
    const seconds: SecondOfActivity[] = [];
    for (let second = nowSecond - this.keepSeconds + 1; second <= nowSecond; second++) {
      seconds.push(bySecond.get(second) ?? { second, succeeded: 0, retried: {}, deadLettered: {} });
    }
    return {
      seconds,
      totals: { ...this.totals },
      byErrorType: structuredClone(this.byErrorType),
      delayHistogram: this.delayCounts.map((count, i) => ({ bucket: bucketLabel(i), count })),
    };
  }

  private current(): SecondOfActivity {
    const second = Math.floor(this.now() / 1000);
    const last = this.ring.at(-1);
    if (last?.second === second) return last;
    const entry: SecondOfActivity = { second, succeeded: 0, retried: {}, deadLettered: {} };
    this.ring.push(entry);
    while (this.ring.length > 0 && this.ring[0]!.second <= second - this.keepSeconds) this.ring.shift();
    return entry;
  }
}

/** Reports to every sink: CloudWatch EMF and the local dashboard. */
export function allMetrics(...sinks: WorkerMetrics[]): WorkerMetrics {
  return {
    received: (count) => sinks.forEach((sink) => sink.received(count)),
    succeeded: (attempt, durationMs) => sinks.forEach((sink) => sink.succeeded(attempt, durationMs)),
    failed: (durationMs) => sinks.forEach((sink) => sink.failed(durationMs)),
    firstFailure: (errorType) => sinks.forEach((sink) => sink.firstFailure(errorType)),
    retried: (errorType, delaySeconds) => sinks.forEach((sink) => sink.retried(errorType, delaySeconds)),
    deadLettered: (reason) => sinks.forEach((sink) => sink.deadLettered(reason)),
    duplicateRisk: () => sinks.forEach((sink) => sink.duplicateRisk()),
    deferred: (cause, errorType) => sinks.forEach((sink) => sink.deferred(cause, errorType)),
    dependencyStates: (states) => sinks.forEach((sink) => sink.dependencyStates(states)),
    flush: async () => void (await Promise.all(sinks.map((sink) => sink.flush()))),
  };
}
