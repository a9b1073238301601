import 'reflect-metadata';
import { SNSClient } from '@aws-sdk/client-sns';
import { Injectable, Module } from '@nestjs/common';
import { RequeuePublisher, RequeuePublisherModule } from '@requeue/nest/publisher';

// Decorated classes live here, in a file the test tsconfig compiles with experimentalDecorators.

@Injectable()
export class Checkout {
  constructor(readonly publisher: RequeuePublisher) {}
}

@Module({ providers: [Checkout] })
class FeatureModule {}

/** The publisher module made global, and a feature module that injects the publisher without importing it. */
@Module({ imports: [RequeuePublisherModule.forRoot({ sns: new SNSClient({ region: 'us-east-1' }), isGlobal: true }), FeatureModule] })
export class GlobalPublisherApp {}

/** The publisher's options from a factory. */
@Module({ imports: [RequeuePublisherModule.forRootAsync({ useFactory: () => ({ sns: new SNSClient({ region: 'us-east-1' }), maxRetries: 2 }) })] })
export class AsyncPublisherApp {}
