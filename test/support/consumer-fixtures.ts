import 'reflect-metadata';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Injectable, Module } from '@nestjs/common';
import { RetryableError, SqsHandler, SqsWorkerModule, type WorkerMessage } from '@requeue/nest';
import { createRetryPolicy } from '@requeue/retry';
import { z } from 'zod';
import type { QueuePair } from './emulator.js';

// Decorated classes live in support files, which are compiled with experimentalDecorators.

export const order = z.object({ orderId: z.string().min(1), amountCents: z.number().int().positive(), slowMs: z.number().optional() });

/** What the two handlers saw: `orders:<orderId>#<attempt>` and `emails:<to>`. */
export const handled: string[] = [];

@Injectable()
export class OrdersHandler {
  @SqsHandler('orders', { schema: order })
  async charge(message: WorkerMessage<z.output<typeof order>>): Promise<void> {
    const { orderId, slowMs } = message.body;
    if (orderId.startsWith('flaky') && message.attempt === 1) throw new RetryableError('payments answered 503');
    if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
    handled.push(`orders:${orderId}#${message.attempt}`);
  }
}

@Injectable()
export class EmailsHandler {
  @SqsHandler('emails')
  async send(message: WorkerMessage): Promise<void> {
    const { to, slowMs } = message.body as { to: string; slowMs?: number };
    if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
    handled.push(`emails:${to}`);
  }
}

/** An app with two consumers, orders and emails, each on its own queue pair. */
export function twoConsumerModule(sqs: SQSClient, orders: QueuePair, emails: QueuePair, extra: { drainTimeoutMs?: number; startRetryMs?: number } = {}) {
  @Module({
    imports: [
      SqsWorkerModule.forRoot({
        sqs,
        waitTimeSeconds: 1,
        batchWaitMs: 5,
        pollBackoff: { initialMs: 50, maxMs: 500 },
        retryPolicy: createRetryPolicy({ jitter: 'none', types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
        ...extra,
        consumers: [
          { handlerName: 'orders', queueUrl: orders.queueUrl, deadLetterQueueUrl: orders.dlqUrl, maxInFlight: 5 },
          { name: 'mail', handlerName: 'emails', queueUrl: emails.queueUrl, deadLetterQueueUrl: emails.dlqUrl, maxInFlight: 2, backpressure: false },
        ],
      }),
    ],
    providers: [OrdersHandler, EmailsHandler],
  })
  class TwoConsumerModule {}
  return TwoConsumerModule;
}
