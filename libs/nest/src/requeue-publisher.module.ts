import { ConfigurableModuleBuilder, Module, type ConfigurableModuleAsyncOptions, type DynamicModule } from '@nestjs/common';
import { RequeuePublisher, type PublisherOptions } from '@requeue/sqs/publisher';

const configurable = new ConfigurableModuleBuilder<PublisherOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (module, extras) => ({ ...module, global: extras.isGlobal }))
  .build();

/**
 * Provides `RequeuePublisher` for injection: `RequeuePublisherModule.forRoot({ sqs, sns })`
 * or `.forRootAsync({ inject, useFactory })`. `isGlobal: true` makes it injectable in
 * every module.
 *
 * @example
 * ```ts
 * @Module({ imports: [RequeuePublisherModule.forRoot({ sns: new SNSClient({}), isGlobal: true })] })
 * class AppModule {}
 *
 * @Injectable()
 * class Checkout {
 *   constructor(private readonly publisher: RequeuePublisher) {}
 *   order(order: Order) {
 *     return this.publisher.publish(topicArn, { body: order });
 *   }
 * }
 * ```
 */
@Module({
  providers: [
    { provide: RequeuePublisher, useFactory: (options: PublisherOptions) => new RequeuePublisher(options), inject: [configurable.MODULE_OPTIONS_TOKEN] },
  ],
  exports: [RequeuePublisher],
})
export class RequeuePublisherModule {
  /** The publisher with these options (and `isGlobal`, default false). */
  static forRoot(options: PublisherOptions & { isGlobal?: boolean }): DynamicModule {
    return { ...configurable.ConfigurableModuleClass.forRoot(options), module: RequeuePublisherModule };
  }

  /** The publisher with options from a factory, e.g. one that reads `ConfigService`. */
  static forRootAsync(options: ConfigurableModuleAsyncOptions<PublisherOptions> & { isGlobal?: boolean }): DynamicModule {
    return { ...configurable.ConfigurableModuleClass.forRootAsync(options), module: RequeuePublisherModule };
  }
}
