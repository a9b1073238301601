import 'reflect-metadata';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Injectable, Module, Scope } from '@nestjs/common';
import { SqsHandler, SqsWorkerModule } from '@requeue/nest';
import { createRetryPolicy, RetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import type { QueuePair } from './emulator.js';

// Decorated classes live here, in a file the test tsconfig compiles with
// experimentalDecorators; test files themselves are not transformed that way.

/** What the fixture handlers saw, in order. */
export const seen: string[] = [];

@Injectable({ scope: Scope.REQUEST })
export class RequestScopedHandler {
  static instances = 0;
  constructor() {
    RequestScopedHandler.instances++;
  }

  @SqsHandler('scoped')
  async handle(message: WorkerMessage): Promise<void> {
    if (message.rawBody === 'flaky' && message.attempt === 1) throw new RetryableError('first try fails');
    seen.push(`${message.rawBody}#${message.attempt}`);
  }
}

@Injectable()
export class SingletonHandler {
  @SqsHandler()
  async handle(message: WorkerMessage): Promise<void> {
    seen.push(`original:${message.rawBody}`);
  }
}

export function moduleFor(sqs: SQSClient, queues: QueuePair, handlerName: string, listenerCalls: string[]) {
  @Module({
    imports: [
      SqsWorkerModule.forRootAsync({
        useFactory: async () => ({
          sqs,
          queueUrl: queues.queueUrl,
          deadLetterQueueUrl: queues.dlqUrl,
          handlerName,
          retryPolicy: createRetryPolicy({ types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
          waitTimeSeconds: 1,
          onError: (_error: unknown, context: { messageId: string }) => {
            listenerCalls.push(context.messageId);
            throw new Error('a broken error listener');
          },
        }),
      }),
    ],
    providers: [RequestScopedHandler, SingletonHandler],
  })
  class TestModule {}
  return TestModule;
}
