import { SQSClient } from '@aws-sdk/client-sqs';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { NestWorkerLogger, SqsWorkerModule } from '@requeue/nest';
import { workerOptionsFromEnv } from '@requeue/sqs/env';
import { ChargeHandler } from './charge.handler.js';
import { EmailHandler } from './email.handler.js';
import { HealthController } from './health.controller.js';
import { required } from './env.js';

@Module({
  imports: [
    TerminusModule,
    SqsWorkerModule.forRoot({
      // Region, credentials and endpoint come from the environment, as for any SDK client.
      sqs: new SQSClient({}),
      logger: new NestWorkerLogger(),
      // Two queues in one process, each with its own DLQ, handler and concurrency. The orders
      // consumer is the one QueueWorkerService configures: its queue, DLQ, retry policy,
      // concurrency and metrics namespace come from the task's environment.
      consumers: [
        { ...workerOptionsFromEnv(), name: 'orders', handlerName: 'charge' },
        { name: 'emails', handlerName: 'email', queueUrl: required('EMAIL_QUEUE_URL'), deadLetterQueueUrl: required('EMAIL_DLQ_URL'), maxInFlight: 5 },
      ],
    }),
  ],
  controllers: [HealthController],
  providers: [ChargeHandler, EmailHandler],
})
export class AppModule {}
