import type { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { SqsWorkerOptions } from '@requeue/sqs';

/** A batch handler's settings, over its `@SqsBatchHandler`'s; a per-message handler ignores them. */
export interface BatchSettings {
  /** Messages per call (WORKER_BATCH_SIZE). @default the decorator's `size`, else 10 */
  batchSize?: number;
  /** How long a batch waits for more (WORKER_BATCH_WINDOW_MS). @default the decorator's `windowMs`, else 50 */
  batchWindowMs?: number;
}

/** What any consumer may set; in the several-consumers form the module-level values are each one's defaults. */
export interface ConsumerEngineOptions
  extends Omit<SqsWorkerOptions, 'handler' | 'batch' | 'schema' | 'sqs' | 'queueUrl' | 'deadLetterQueueUrl'>, BatchSettings {}

/** One queue, its DLQ and the `@SqsHandler` that serves it. */
export interface SqsConsumerOptions extends ConsumerEngineOptions {
  /** Names the consumer in health, logs and `onError`. Unique. @default its handlerName */
  name?: string;
  /** The `@SqsHandler(name)` this consumer runs. */
  handlerName: string;
  /** The queue this consumer polls. */
  queueUrl: string;
  /** Its dead-letter queue. */
  deadLetterQueueUrl: string;
  /** @default the module's `sqs` */
  sqs?: SQSClient;
}

/** Settings of the module itself, in both forms. */
export interface SqsModuleBehaviour {
  /** Start polling when the application boots. @default true */
  autoStart?: boolean;
  /**
   * Told about every handler failure, for error reporting. It cannot break the worker:
   * whatever it throws is logged and ignored.
   */
  onError?: (error: unknown, context: { messageId: string; attempt: number; consumer: string }) => void;
  /**
   * A consumer whose queue cannot be reached at boot (deleted, no permission, an outage)
   * is tried again after this long, doubling to a minute, while the others run. @default 5000
   */
  startRetryMs?: number;
}

/** One consumer: the engine's options, with the handler chosen by name. */
export interface SingleConsumerModuleOptions extends Omit<SqsWorkerOptions, 'handler' | 'batch' | 'schema'>, BatchSettings, SqsModuleBehaviour {
  /** The `@SqsHandler(name)` to run. @default 'default' */
  handlerName?: string;
}

/** Several consumers in one process, each with its own queue, DLQ, handler, policy, concurrency and backpressure. */
export interface MultiConsumerModuleOptions extends Partial<ConsumerEngineOptions>, SqsModuleBehaviour {
  /** The client every consumer uses unless it brings its own. */
  sqs: SQSClient;
  /** The consumers, each with its own queue, DLQ and handler. */
  consumers: readonly SqsConsumerOptions[];
}

/** What `SqsWorkerModule.forRoot` takes: one consumer, or several (`consumers`). */
export type SqsWorkerModuleOptions = SingleConsumerModuleOptions | MultiConsumerModuleOptions;

const configurable = new ConfigurableModuleBuilder<SqsWorkerModuleOptions>().setClassMethodName('forRoot').build();

export const { ConfigurableModuleClass } = configurable;

/** The injection token of the module's options: `@Inject(SQS_WORKER_OPTIONS)` reads what `forRoot` was given. */
export const MODULE_OPTIONS_TOKEN: string | symbol = configurable.MODULE_OPTIONS_TOKEN;
