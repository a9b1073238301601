import { SQSClient } from '@aws-sdk/client-sqs';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { NestWorkerLogger, SqsWorkerModule } from '@requeue/nest';
import { workerOptionsFromEnv } from '@requeue/sqs/env';
import { HealthController } from './health.controller';
import { OrdersHandler } from './orders.handler';

@Module({
  imports: [
    TerminusModule,
    // Everything QueueWorkerService sets on the task (the queue and DLQ, RETRY_POLICY,
    // WORKER_MAX_IN_FLIGHT, METRICS_NAMESPACE, the idempotency table, ...) reaches the worker.
    SqsWorkerModule.forRoot({ sqs: new SQSClient({}), logger: new NestWorkerLogger(), ...workerOptionsFromEnv() }),
  ],
  controllers: [HealthController],
  providers: [OrdersHandler],
})
export class AppModule {}
