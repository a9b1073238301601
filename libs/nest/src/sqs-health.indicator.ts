import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { WorkerHealth } from '@requeue/sqs';
import { SqsWorkerService } from './sqs-worker.service.js';

/** Terminus indicators: liveness of the poll loop, readiness to receive, and the in-flight count. */
@Injectable()
export class SqsHealthIndicator {
  constructor(
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(SqsWorkerService) private readonly worker: SqsWorkerService,
  ) {}

  /** Up while the poll loop makes progress, backing off included. */
  isLive(key = 'sqs-worker') {
    return this.report(key, 'live');
  }

  /** Up while receiving; down during an SQS outage and while stopping. */
  isReady(key = 'sqs-worker') {
    return this.report(key, 'ready');
  }

  private report(key: string, aspect: 'live' | 'ready') {
    const session = this.indicators.check(key);
    const health: WorkerHealth | undefined = this.worker.health();
    if (!health) return session.down({ message: 'worker not started' });
    const details = {
      inFlight: health.inFlight,
      maxInFlight: health.maxInFlight,
      lastPollActivityAt: health.lastPollActivityAt,
      consecutivePollFailures: health.consecutivePollFailures,
      // An open breaker is the dependency's outage, not the worker's: a detail, never "down".
      dependencies: health.dependencies,
    };
    return health[aspect] ? session.up(details) : session.down(details);
  }
}
