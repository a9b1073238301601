import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import { SqsWorker, type MessageHandler, type ScheduledRetry, type WorkerHealth } from '@requeue/sqs';
import { resolveSqsHandler } from './handler-resolver.js';
import { MODULE_OPTIONS_TOKEN, type SqsWorkerModuleOptions } from './sqs-worker.options.js';

/** Owns the engine: starts it once the app has booted, drains it on shutdown. */
@Injectable()
export class SqsWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker: SqsWorker | undefined;

  constructor(
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: SqsWorkerModuleOptions,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { handlerName = 'default', autoStart = true, onError, retryPolicy, ...engine } = this.options;
    const resolved = resolveSqsHandler(handlerName, this.discovery, this.scanner, this.moduleRef);
    const handler: MessageHandler = onError ? this.reportingErrors(resolved, onError) : resolved;
    this.worker = new SqsWorker({ ...engine, handler, retryPolicy });
    if (autoStart) await this.worker.start();
  }

  /** Runs before the HTTP server closes, so health endpoints answer while the worker drains. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.stop();
  }

  start(): Promise<void> {
    return this.requireWorker().start();
  }

  stop(drainTimeoutMs?: number): Promise<void> {
    return this.requireWorker().stop(drainTimeoutMs === undefined ? {} : { drainTimeoutMs });
  }

  health(): WorkerHealth | undefined {
    return this.worker?.health();
  }

  /** Retries and deferrals scheduled and not yet due, newest first (bounded): what SQS cannot list. */
  scheduledRetries(): ScheduledRetry[] {
    return this.worker?.scheduledRetries() ?? [];
  }

  private requireWorker(): SqsWorker {
    if (!this.worker) throw new Error('the SQS worker is created when the application boots; call app.init() first');
    return this.worker;
  }

  private reportingErrors(handler: MessageHandler, onError: NonNullable<SqsWorkerModuleOptions['onError']>): MessageHandler {
    return async (message) => {
      try {
        await handler(message);
      } catch (error) {
        try {
          onError(error, { messageId: message.messageId, attempt: message.attempt });
        } catch (listenerError) {
          this.options.logger?.error({ err: listenerError }, 'onError listener threw; ignored');
        }
        throw error;
      }
    };
  }
}
