import { Module, type ConfigurableModuleAsyncOptions, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { SqsHealthIndicator } from './sqs-health.indicator.js';
import { SqsWorkerService } from './sqs-worker.service.js';
import { ConfigurableModuleClass, type SqsWorkerModuleOptions } from './sqs-worker.options.js';

/**
 * `SqsWorkerModule.forRoot(options)` or `.forRootAsync({ imports, inject, useFactory })`.
 * Decorate one provider method with `@SqsHandler()`; the module finds it, starts the
 * worker after bootstrap and drains it on shutdown (call `app.enableShutdownHooks()`).
 *
 * @example
 * ```ts
 * @Injectable()
 * class Orders {
 *   @SqsHandler('orders', { schema: OrderSchema })
 *   async handle(message: WorkerMessage<Order>): Promise<void> {
 *     await this.payments.charge(message.body, { signal: message.signal });
 *   }
 * }
 *
 * @Module({
 *   imports: [SqsWorkerModule.forRoot({ sqs: new SQSClient({}), queueUrl, deadLetterQueueUrl, handlerName: 'orders' })],
 *   providers: [Orders],
 * })
 * class AppModule {}
 * ```
 */
@Module({
  imports: [DiscoveryModule, TerminusModule],
  providers: [SqsWorkerService, SqsHealthIndicator],
  exports: [SqsWorkerService, SqsHealthIndicator],
})
export class SqsWorkerModule {
  /** The worker with these options. */
  static forRoot(options: SqsWorkerModuleOptions): DynamicModule {
    return { ...ConfigurableModuleClass.forRoot(options), module: SqsWorkerModule };
  }

  /** The worker with options from a factory, e.g. one that reads `ConfigService`. */
  static forRootAsync(options: ConfigurableModuleAsyncOptions<SqsWorkerModuleOptions>): DynamicModule {
    return { ...ConfigurableModuleClass.forRootAsync(options), module: SqsWorkerModule };
  }
}
