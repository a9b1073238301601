import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { SqsHealthIndicator } from '@requeue/nest';

/** What the container's health check and a load balancer probe. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly sqs: SqsHealthIndicator,
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
