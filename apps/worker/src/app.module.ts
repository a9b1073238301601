import { hostname } from 'node:os';
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerModule } from '@requeue/nest';
import type { FleetStateStore, WorkerMetrics } from '@requeue/sqs';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { WorkerConfig } from './config.js';
import type { IdempotencyStores } from './idempotency-store.js';
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
  /** Each consumer's idempotency guard, when WORKER_IDEMPOTENCY names a store. */
  idempotency: IdempotencyStores;
  /** Where the fleet shares backpressure, when WORKER_FLEET_STATE names a store. */
  fleet: FleetStateStore | undefined;
}

/** This process within the fleet: the task's host name is unique in ECS, the pid on one machine. */
const FLEET_MEMBER_ID = `${hostname()}-${process.pid}`;

@Module({})
export class AppModule {
  static register({ config, queues, sqs, logger, metricsFor, idempotency, fleet }: AppDependencies): DynamicModule {
    const shared = {
      waitTimeSeconds: config.waitTimeSeconds,
      receiveBatchSize: config.receiveBatchSize,
      handlerTimeoutMs: config.handlerTimeoutMs,
      drainTimeoutMs: config.drainTimeoutMs,
      backpressure: config.backpressure,
      ...optional('prefetch', config.prefetch),
      ...optional('fifoRetryInPlaceSeconds', config.fifoRetryInPlaceSeconds),
      ...(config.tracing ? {} : { tracing: false as const }),
      ...(config.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: config.visibilityTimeoutSeconds }),
      ...optional('retryStateKeys', config.retryStateKeys),
      logger,
    };
    const consumers = (config.consumers ?? [{ name: config.handler, handler: config.handler, maxInFlight: config.maxInFlight, retryPolicy: config.retryPolicy, ...queues }]).map((consumer) => ({
      name: consumer.name,
      handlerName: consumer.handler,
      queueUrl: consumer.queueUrl,
      deadLetterQueueUrl: consumer.dlqUrl,
      maxInFlight: consumer.maxInFlight,
      retryPolicy: consumer.retryPolicy,
      metrics: metricsFor(consumer.queueUrl),
      ...optional('idempotency', idempotency.forConsumer()),
      // Each consumer its own member of the fleet: two of them may call the same host.
      ...(fleet && config.backpressure ? { backpressure: { ...config.backpressure, fleet: { store: fleet, workerId: `${FLEET_MEMBER_ID}/${consumer.name}` } } } : {}),
      // Webhooks to different hosts fail apart: each host gets its own breaker and limit.
      ...(consumer.handler === 'webhook' ? { dependencyKey: webhookDependencyKey(config.webhookUrl, new EgressPolicy(config.webhookAllowHosts)) } : {}),
    }));
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: { logger, autoLogging: false } }),
        TerminusModule,
        SqsWorkerModule.forRoot({ sqs, ...shared, consumers }),
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_CONFIG, useValue: config }, SimulationHandler, WebhookHandler],
    };
  }
}

/** `{ [name]: value }`, or nothing when the value is undefined (the engine's options take no explicit undefined). */
function optional<K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, V>);
}
