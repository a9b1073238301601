import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { SqsWorkerService } from './sqs-worker.service.js';

/** Terminus indicators: liveness of the poll loop, readiness to receive, and the in-flight count. */
@Injectable()
export class SqsHealthIndicator {
  constructor(
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(SqsWorkerService) private readonly worker: SqsWorkerService,
  ) {}

  isLive(key = 'sqs-worker') {
    const session = this.indicators.check(key);
    const health = this.worker.health();
    if (!health) return session.down({ message: 'worker not started' });
    const details = { inFlight: health.inFlight, maxInFlight: health.maxInFlight, lastPollActivityAt: health.lastPollActivityAt };
    return health.live ? session.up(details) : session.down(details);
  }

  isReady(key = 'sqs-worker') {
    const session = this.indicators.check(key);
    const health = this.worker.health();
    if (!health) return session.down({ message: 'worker not started' });
    const details = { inFlight: health.inFlight, maxInFlight: health.maxInFlight, consecutivePollFailures: health.consecutivePollFailures };
    return health.ready ? session.up(details) : session.down(details);
  }
}
