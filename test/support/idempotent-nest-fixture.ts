import 'reflect-metadata';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Injectable, Module } from '@nestjs/common';
import { SqsHandler, SqsWorkerModule } from '@requeue/nest';
import type { IdempotencyOptions, WorkerMessage } from '@requeue/sqs';
import { z } from 'zod';
import type { QueuePair } from './emulator.js';

/**
 * The guard `@SqsHandler('charge', { idempotency })` is given at class definition. Its
 * store is filled in by the test before the module boots (the decorator keeps this very
 * object), since the Redis it talks to starts with the test. Its key reads the body as the
 * schema types it: this file compiles (tsc -b, strict) only while `@SqsHandler` types an
 * idempotency key by the handler's schema.
 */
const charge = z.object({ chargeId: z.string() });
export const chargeIdempotency: IdempotencyOptions<z.output<typeof charge>> = {
  store: undefined as unknown as IdempotencyOptions['store'],
  key: (message) => message.body.chargeId,
};

/** The charges the handler made, in order. */
export const charges: string[] = [];

@Injectable()
export class ChargeHandler {
  @SqsHandler('charge', { schema: charge, idempotency: chargeIdempotency })
  async charge(message: WorkerMessage<z.output<typeof charge>>): Promise<void> {
    charges.push(message.body.chargeId);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function chargeModule(sqs: SQSClient, queues: QueuePair) {
  @Module({
    imports: [SqsWorkerModule.forRoot({ sqs, queueUrl: queues.queueUrl, deadLetterQueueUrl: queues.dlqUrl, handlerName: 'charge', waitTimeSeconds: 1 })],
    providers: [ChargeHandler],
  })
  class ChargeModule {}
  return ChargeModule;
}
