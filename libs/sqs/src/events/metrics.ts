// Deep imports on purpose: the package's index loads its environment detector, which at
// import time probes the EC2 metadata service (169.254.169.254) from every process that
// loads it. These modules serialize EMF without detecting anything.
import { MetricsLogger } from 'aws-embedded-metrics/lib/logger/MetricsLogger.js';
import { Unit } from 'aws-embedded-metrics/lib/logger/Unit.js';
import type { IEnvironment } from 'aws-embedded-metrics/lib/environment/IEnvironment.js';
import type { MetricsContext } from 'aws-embedded-metrics/lib/logger/MetricsContext.js';
import { LogSerializer } from 'aws-embedded-metrics/lib/serializers/LogSerializer.js';
import type { Writable } from 'node:stream';
import type { DependencySnapshot } from '../backpressure/admission.js';
import type { TenantsSnapshot } from '../tenants/tenant-dwell.js';
import { MetricDimension, MetricName } from '../metric-names.js';

/** What the engine reports. `EmfMetrics` publishes it; tests may record it. */
export interface WorkerMetrics {
  /** Messages received. */
  received(count: number): void;
  /** A handler succeeded on `attempt`, in `durationMs`. */
  succeeded(attempt: number, durationMs: number): void;
  /** A handler failed (or timed out) after `durationMs`. */
  failed(durationMs: number): void;
  /** A message failed on its first attempt: a new failure, not a retry of an old one. */
  firstFailure(errorType: string): void;
  /** A retry was scheduled after `delaySeconds`. */
  retried(errorType: string, delaySeconds: number): void;
  /** A message reached the DLQ. */
  deadLettered(reason: string): void;
  /** A dead letter went without `x-dead-letter`: `noRoom` says which of SQS's limits (its 10 attributes, or its size) left none. */
  deadLetteredWithoutReason?(noRoom: 'attributes' | 'size'): void;
  /** A delete failed after a copy or dead letter was sent: the message will exist twice. */
  duplicateRisk(): void;
  /**
   * A message handed back without running or without using an attempt, because of its
   * dependency; `errorType` is its failure's when the handler ran.
   */
  deferred(cause: 'breaker-open' | 'rate-limited' | 'duplicate-in-progress', errorType?: string): void;
  /** The dependencies' state, just before each flush: published as gauges. */
  dependencyStates(states: readonly DependencySnapshot[]): void;
  /** With `tenants` on, just before each flush: the worst-served tenants' dwell and handlers, and the worst dwell of all. */
  tenants?(snapshot: TenantsSnapshot): void;
  /** Writes what was gathered; called on an interval and at stop. */
  flush(): Promise<void>;
}

export const noMetrics: WorkerMetrics = {
  received: () => undefined,
  succeeded: () => undefined,
  failed: () => undefined,
  firstFailure: () => undefined,
  retried: () => undefined,
  deadLettered: () => undefined,
  duplicateRisk: () => undefined,
  deferred: () => undefined,
  dependencyStates: () => undefined,
  flush: async () => undefined,
};

/**
 * Where `EmfMetrics` publishes: the namespace and the `Queue` dimension the stack's alarms read.
 */
export interface EmfMetricsOptions {
  /** The CloudWatch namespace; the stack's `metricsNamespace`. */
  namespace: string;
  /** The `Queue` dimension: the queue's name. */
  queueName: string;
  /** Where EMF documents go: stdout for CloudWatch Logs (the default). */
  stream?: Writable;
  /** A distribution keeps at most this many samples per flush (uniform reservoir). */
  maxSamples?: number;
}

/**
 * Aggregates in memory and writes CloudWatch Embedded Metric Format documents on
 * `flush()`, one per dimension set, through aws-embedded-metrics' own serializer.
 * Counters are summed; distributions (durations, delays) keep a bounded sample so a
 * busy worker's memory stays flat.
 */
export class EmfMetrics implements WorkerMetrics {
  private counters = new Map<string, { dimensions: Record<string, string>; name: string; value: number; unit?: Unit }>();
  private samples = new Map<string, { name: string; unit: Unit; values: number[]; seen: number }>();
  private readonly environment: IEnvironment;
  private readonly maxSamples: number;

  constructor(private readonly options: EmfMetricsOptions) {
    this.maxSamples = options.maxSamples ?? 500;
    const stream = options.stream ?? process.stdout;
    const serializer = new LogSerializer();
    this.environment = {
      probe: async () => true,
      getName: () => 'requeue',
      getType: () => 'requeue',
      getLogGroupName: () => '',
      configureContext: () => undefined,
      getSink: () => ({
        name: 'StreamSink',
        accept: async (context: MetricsContext) => {
          for (const line of serializer.serialize(context)) stream.write(`${line}\n`);
        },
      }),
    };
  }

  /** Counts `Received`. */
  received(count: number): void {
    this.count(MetricName.received, count);
  }

  /** Counts `Succeeded`; samples `AttemptsToSuccess` and `HandlerDuration`. */
  succeeded(attempt: number, durationMs: number): void {
    this.count(MetricName.succeeded, 1);
    this.sample(MetricName.attemptsToSuccess, attempt, Unit.Count);
    this.sample(MetricName.handlerDuration, durationMs, Unit.Milliseconds);
  }

  /** Samples `HandlerDuration`. */
  failed(durationMs: number): void {
    this.sample(MetricName.handlerDuration, durationMs, Unit.Milliseconds);
  }

  /** Alarmed on (opt-in): a new error pattern shows here before any retry or dead letter. */
  firstFailure(errorType: string): void {
    this.count(MetricName.firstFailures, 1, { [MetricDimension.errorType]: errorType });
  }

  /** Counts `Retried` by error type; samples `RetryDelay`. */
  retried(errorType: string, delaySeconds: number): void {
    this.count(MetricName.retried, 1, { [MetricDimension.errorType]: errorType });
    this.sample(MetricName.retryDelay, delaySeconds, Unit.Seconds);
  }

  /** Counts `DeadLettered` by reason. */
  deadLettered(reason: string): void {
    this.count(MetricName.deadLettered, 1, { [MetricDimension.reason]: reason });
  }

  /** Counts `DeadLettersWithoutReason` by the limit met (the `Reason` dimension: `attributes` or `size`). */
  deadLetteredWithoutReason(noRoom: 'attributes' | 'size'): void {
    this.count(MetricName.deadLetteredWithoutReason, 1, { [MetricDimension.reason]: noRoom });
  }

  /** Counts `DuplicateRisk`. */
  duplicateRisk(): void {
    this.count(MetricName.duplicateRisk, 1);
  }

  /** Counts `Deferred` by cause. */
  deferred(cause: Parameters<WorkerMetrics['deferred']>[0]): void {
    this.count(MetricName.deferred, 1, { [MetricDimension.reason]: cause });
  }

  /** BreakerOpen (1 open or probing, 0 closed) and ConcurrencyLimit, per Queue and Dependency. */
  dependencyStates(states: readonly DependencySnapshot[]): void {
    for (const state of states) {
      const dimensions = { [MetricDimension.dependency]: state.key };
      this.gauge(MetricName.breakerOpen, state.breaker === 'open' || state.breaker === 'half-open' ? 1 : 0, dimensions);
      this.gauge(MetricName.concurrencyLimit, state.concurrencyLimit, dimensions);
    }
  }

  /**
   * TenantDwell and TenantInFlight per Queue and Tenant for the few tenants in the snapshot
   * (the worst served), WorstTenantDwell per Queue: what the worst-tenant alarm reads.
   */
  tenants(snapshot: TenantsSnapshot): void {
    for (const { tenant, maxDwellMs, inFlight } of snapshot.top) {
      // CloudWatch refuses an empty dimension value: messages with no tenant key share one name.
      const dimensions = { [MetricDimension.tenant]: tenant === '' ? NO_TENANT_DIMENSION : tenant };
      this.gauge(MetricName.tenantDwell, maxDwellMs, dimensions, Unit.Milliseconds);
      this.gauge(MetricName.tenantInFlight, inFlight, dimensions);
    }
    this.gauge(MetricName.worstTenantDwell, snapshot.worstDwellMs, {}, Unit.Milliseconds);
  }

  /** Writes one EMF document per dimension set and starts gathering afresh. */
  async flush(): Promise<void> {
    const counters = this.counters;
    const samples = this.samples;
    this.counters = new Map();
    this.samples = new Map();
    const byDimensions = new Map<string, MetricsLogger>();
    const loggerFor = (extra: Record<string, string>) => {
      const key = JSON.stringify(extra);
      let logger = byDimensions.get(key);
      if (!logger) {
        logger = new MetricsLogger(async () => this.environment);
        logger.setNamespace(this.options.namespace);
        const queue = { [MetricDimension.queue]: this.options.queueName };
        // Per-ErrorType and per-Reason counts are also published per queue alone: alarms
        // cannot sum dimensions with SEARCH, so the error-rate alarm reads the total.
        if (Object.keys(extra).length === 0) logger.setDimensions(queue);
        else logger.setDimensions([queue, { ...queue, ...extra }], false);
        byDimensions.set(key, logger);
      }
      return logger;
    };
    for (const { name, value, dimensions, unit } of counters.values()) loggerFor(dimensions).putMetric(name, value, unit ?? Unit.Count);
    for (const { name, unit, values } of samples.values()) for (const value of values) loggerFor({}).putMetric(name, value, unit);
    await Promise.all([...byDimensions.values()].map((logger) => logger.flush()));
  }

  /** A gauge is its latest value; it shares the counters' map, keyed apart by name. */
  private gauge(name: string, value: number, dimensions: Record<string, string>, unit?: Unit): void {
    this.counters.set(counterKey(name, dimensions), { name, value, dimensions, unit });
  }

  private count(name: string, value: number, dimensions: Record<string, string> = {}): void {
    const key = counterKey(name, dimensions);
    const counter = this.counters.get(key);
    if (counter) counter.value += value;
    else this.counters.set(key, { name, value, dimensions });
  }

  private sample(name: string, value: number, unit: Unit): void {
    let entry = this.samples.get(name);
    if (!entry) this.samples.set(name, (entry = { name, unit, values: [], seen: 0 }));
    entry.seen++;
    if (entry.values.length < this.maxSamples) entry.values.push(value);
    else {
      // Reservoir sampling keeps a uniform sample of everything seen this interval.
      const slot = Math.floor(Math.random() * entry.seen);
      if (slot < this.maxSamples) entry.values[slot] = value;
    }
  }
}

/** The `Tenant` dimension of messages whose tenant key names none. */
export const NO_TENANT_DIMENSION = '(none)';

/** Called for every message: a plain string key, not JSON.stringify, on this path. */
function counterKey(name: string, dimensions: Record<string, string>): string {
  let key = name;
  for (const dimension in dimensions) key += `\u0000${dimension}=${dimensions[dimension]}`;
  return key;
}
