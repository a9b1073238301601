import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { ConsumerHealth } from './consumer.js';
import { SqsWorkerService } from './sqs-worker.service.js';

/**
 * Terminus indicators over every consumer: liveness of their poll loops and readiness to
 * receive, with each consumer's own state under `consumers.<name>`, so a consumer whose
 * queue is gone shows by name while the others keep working.
 */
@Injectable()
export class SqsHealthIndicator {
  constructor(
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(SqsWorkerService) private readonly worker: SqsWorkerService,
  ) {}

  /** Up while every consumer's poll loop makes progress, backing off included. */
  isLive(key = 'sqs-worker'): HealthIndicatorResult {
    return this.report(key, 'live');
  }

  /** Up while every consumer is receiving; down during an SQS outage, a missing queue, and while stopping. */
  isReady(key = 'sqs-worker'): HealthIndicatorResult {
    return this.report(key, 'ready');
  }

  private report(key: string, aspect: 'live' | 'ready'): HealthIndicatorResult {
    const session = this.indicators.check(key);
    const consumers = this.worker.health();
    const names = Object.keys(consumers);
    if (names.length === 0) return session.down({ message: 'worker not started' });
    const details = { consumers: Object.fromEntries(names.map((name) => [name, summary(consumers[name]!)])) };
    return names.every((name) => consumers[name]![aspect]) ? session.up(details) : session.down(details);
  }
}

function summary(health: ConsumerHealth) {
  if ('starting' in health) return { live: health.live, ready: health.ready, error: health.error };
  return {
    live: health.live,
    ready: health.ready,
    inFlight: health.inFlight,
    maxInFlight: health.maxInFlight,
    lastPollActivityAt: health.lastPollActivityAt,
    consecutivePollFailures: health.consecutivePollFailures,
    // An open breaker is the dependency's outage, not the worker's: a detail, never "down".
    dependencies: health.dependencies,
  };
}
