import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerModule } from '@requeue/nest';
import type { WorkerMetrics } from '@requeue/sqs';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { WorkerConfig } from './config.js';
import { SimulationHandler } from './handlers/simulation.handler.js';
import { WebhookHandler, webhookDependencyKey } from './handlers/webhook.handler.js';
import { HealthController } from './health.controller.js';
import { APP_CONFIG } from './tokens.js';

export interface AppDependencies {
  config: WorkerConfig;
  queues: { queueUrl: string; dlqUrl: string };
  sqs: SQSClient;
  logger: Logger;
  metrics: WorkerMetrics;
}

@Module({})
export class AppModule {
  static register({ config, queues, sqs, logger, metrics }: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: { logger, autoLogging: false } }),
        TerminusModule,
        SqsWorkerModule.forRoot({
          sqs,
          queueUrl: queues.queueUrl,
          deadLetterQueueUrl: queues.dlqUrl,
          handlerName: config.handler,
          retryPolicy: config.retryPolicy,
          maxInFlight: config.maxInFlight,
          waitTimeSeconds: config.waitTimeSeconds,
          receiveBatchSize: config.receiveBatchSize,
          handlerTimeoutMs: config.handlerTimeoutMs,
          drainTimeoutMs: config.drainTimeoutMs,
          backpressure: config.backpressure,
          // Webhooks to different hosts fail apart: each host gets its own breaker and limit.
          ...(config.handler === 'webhook' ? { dependencyKey: webhookDependencyKey(config.webhookUrl) } : {}),
          ...(config.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: config.visibilityTimeoutSeconds }),
          logger,
          metrics,
        }),
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_CONFIG, useValue: config }, SimulationHandler, WebhookHandler],
    };
  }
}
