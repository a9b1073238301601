import { hostname } from 'node:os';
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerModule } from '@requeue/nest';
import type { WorkerMetrics } from '@requeue/sqs';
import type { WorkerEnvOptions } from '@requeue/sqs/env';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { WorkerConfig } from './config.js';
import type { ConsumerConfig } from './consumers-config.js';
import { SimulationHandler } from './handlers/simulation.handler.js';
import { EgressPolicy } from './handlers/egress.js';
import { WebhookHandler, webhookDependencyKey } from './handlers/webhook.handler.js';
import { HealthController } from './health.controller.js';
import { APP_CONFIG } from './tokens.js';

export interface AppDependencies {
  config: WorkerConfig;
  queues: { queueUrl: string; dlqUrl: string };
  sqs: SQSClient;
  logger: Logger;
  /** The metrics of the consumer on this queue (EMF carries the queue's name as a dimension). */
  metricsFor: (queueUrl: string) => WorkerMetrics;
  /** Each consumer's engine options, its stores opened (`workerOptions` of `@requeue/sqs/env`); the caller closes them. */
  engineFor: (consumer: ConsumerConfig) => WorkerEnvOptions;
}

/** This process within the fleet: the task's host name is unique in ECS, the pid on one machine. */
const FLEET_MEMBER_ID = `${hostname()}-${process.pid}`;

@Module({})
export class AppModule {
  static register({ config, queues, sqs, logger, metricsFor, engineFor }: AppDependencies): DynamicModule {
    const consumers = (
      config.consumers ?? [{ name: config.handler, handler: config.handler, maxInFlight: config.maxInFlight, retryPolicy: config.retryPolicy, ...queues }]
    ).map((consumer) => {
      const { backpressure, ...engine } = engineFor(consumer);
      return {
        ...engine,
        name: consumer.name,
        handlerName: consumer.handler,
        metrics: metricsFor(consumer.queueUrl),
        // Each consumer its own member of the fleet: two of them may call the same host.
        backpressure:
          backpressure && backpressure.fleet
            ? { ...backpressure, fleet: { ...backpressure.fleet, workerId: `${FLEET_MEMBER_ID}/${consumer.name}` } }
            : backpressure,
        // Webhooks to different hosts fail apart: each host gets its own breaker and limit.
        ...(consumer.handler === 'webhook' ? { dependencyKey: webhookDependencyKey(config.webhookUrl, new EgressPolicy(config.webhookAllowHosts)) } : {}),
      };
    });
    return {
      module: AppModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger, autoLogging: false } }), TerminusModule, SqsWorkerModule.forRoot({ sqs, logger, consumers })],
      controllers: [HealthController],
      providers: [{ provide: APP_CONFIG, useValue: config }, SimulationHandler, WebhookHandler],
    };
  }
}
