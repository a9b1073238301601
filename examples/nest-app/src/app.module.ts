import { SQSClient } from '@aws-sdk/client-sqs';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { SqsWorkerModule } from '@requeue/nest';
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
      // Two queues in one process, each with its own DLQ, handler and concurrency.
      consumers: [
        { name: 'orders', handlerName: 'charge', queueUrl: required('WORKER_QUEUE_URL'), deadLetterQueueUrl: required('WORKER_DLQ_URL'), maxInFlight: 10 },
        { name: 'emails', handlerName: 'email', queueUrl: required('EMAIL_QUEUE_URL'), deadLetterQueueUrl: required('EMAIL_DLQ_URL'), maxInFlight: 5 },
      ],
    }),
  ],
  controllers: [HealthController],
  providers: [ChargeHandler, EmailHandler],
})
export class AppModule {}
