import type { WorkerLogger } from './logger.js';
import type { WorkerMetrics } from './metrics.js';
import type { ScheduledRetries } from '../delivery/scheduled-retries.js';
import type { EngineEvents } from './engine-events.js';
import type { EventStream } from './event-stream.js';
import { subscribeLogs } from './log-subscriber.js';

/** Everything the worker reports is built on its events: metrics, logs, traces and the scheduled-retries view. */
export function observeWorker(
  events: EventStream<EngineEvents>,
  options: { metrics: WorkerMetrics; logger: WorkerLogger; queueUrl: string; now: () => number },
  scheduled: ScheduledRetries,
): void {
  subscribeMetrics(events, options.metrics);
  subscribeLogs(events, options.logger, options.queueUrl);
  subscribeTraces(events);
  subscribeScheduled(events, scheduled, options.now);
}

/** The worker's metrics, from its events. */
export function subscribeMetrics(events: EventStream<EngineEvents>, metrics: WorkerMetrics): void {
  events.on('received', () => metrics.received(1));
  events.on('handled', ({ result, attempt, durationMs, failure }) => {
    if (result === 'succeeded') return metrics.succeeded(attempt, durationMs);
    metrics.failed(durationMs);
    // A new failure, not a retry of an old one: the opt-in alarm's early signal.
    if (failure && attempt === 1) metrics.firstFailure(failure.errorType);
  });
  events.on('settled', ({ outcome }) => {
    if (outcome.kind === 'retry') metrics.retried(outcome.errorType, outcome.delaySeconds);
    else if (outcome.kind === 'deferred' && outcome.cause !== 'not-before') metrics.deferred(outcome.cause, outcome.ran ? outcome.errorType : undefined);
    else if (outcome.kind === 'dead-letter') {
      metrics.deadLettered(outcome.reason);
      if (outcome.noRoom) metrics.deadLetteredWithoutReason?.(outcome.noRoom);
    }
  });
  events.on('settleFailed', ({ duplicate }) => {
    if (duplicate) metrics.duplicateRisk();
  });
}

/** Each delivery's process span records its failure and how it was settled. */
export function subscribeTraces(events: EventStream<EngineEvents>): void {
  events.on('handled', ({ trace, failure }) => {
    if (failure) trace?.failed(failure.errorType, failure.error);
  });
  events.on('settled', ({ trace, outcome }) => {
    if (trace && outcome.kind !== 'held-back') trace.settled(outcome);
  });
}

/** What `scheduledRetries()` lists: every retry and deferral this worker scheduled. */
export function subscribeScheduled(events: EventStream<EngineEvents>, scheduled: ScheduledRetries, now: () => number): void {
  events.on('settled', ({ messageId, originalMessageId, attempt, outcome, trace }) => {
    if (outcome.kind !== 'retry' && outcome.kind !== 'deferred') return;
    scheduled.record({
      messageId,
      originalMessageId,
      attempt: outcome.kind === 'retry' ? outcome.nextAttempt : attempt,
      errorType: outcome.errorType,
      lastError: outcome.error,
      dueAt: now() + outcome.delaySeconds * 1000,
      kind: outcome.kind,
      transport: outcome.transport,
      ...(trace?.carried ? { traceId: trace.carried.traceId } : {}),
    });
  });
}
