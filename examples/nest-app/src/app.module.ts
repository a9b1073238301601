import { SQSClient } from '@aws-sdk/client-sqs';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { SqsWorkerModule } from '@requeue/nest';
import { ChargeHandler } from './charge.handler.js';
import { HealthController } from './health.controller.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: give the queue's URL`);
  return value;
}

@Module({
  imports: [
    TerminusModule,
    SqsWorkerModule.forRoot({
      // Region, credentials and endpoint come from the environment, as for any SDK client.
      sqs: new SQSClient({}),
      queueUrl: required('WORKER_QUEUE_URL'),
      deadLetterQueueUrl: required('WORKER_DLQ_URL'),
      handlerName: 'charge',
      maxInFlight: 10,
    }),
  ],
  controllers: [HealthController],
  providers: [ChargeHandler],
})
export class AppModule {}
