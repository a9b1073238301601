import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { SqsHealthIndicator } from '@requeue/nest';

/** `/health/live`: the poll loop is alive. `/health/ready`: it is receiving (not during an SQS outage). */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(SqsHealthIndicator) private readonly sqs: SqsHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.sqs.isLive()]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.sqs.isReady()]);
  }
}
