import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import type { BatchHandler, MessageHandler, ScheduledRetry, WorkerMessage } from '@requeue/sqs';
import { Consumer, type ConsumerHealth } from './consumer.js';
import { consumerList } from './consumer-list.js';
import { resolveSqsHandler, type ResolvedHandler } from './handler-resolver.js';
import { MODULE_OPTIONS_TOKEN, type SqsWorkerModuleOptions } from './sqs-worker.options.js';

/** What `startedWithin` found: the consumers running, and the others with their last start error. */
export interface ConsumersStarted {
  /** The names of the consumers whose engines run. */
  started: string[];
  /** The others, each with why its last start failed (a `QueueUnavailableError` when the queue could not be read). */
  failing: Array<{ consumer: string; error: Error }>;
}

/** Owns the consumers: starts them once the app has booted, drains them all on shutdown. */
@Injectable()
export class SqsWorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private consumers: Consumer[] = [];

  constructor(
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: SqsWorkerModuleOptions,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Resolves every consumer's handler (a missing one fails the boot), then starts the consumers
   * unless `autoStart` is false.
   */
  async onApplicationBootstrap(): Promise<void> {
    // Every handler is resolved before any consumer starts: a missing one fails the boot.
    this.consumers = consumerList(this.options).map((consumer) => {
      const resolved = resolveSqsHandler(consumer.handlerName, this.discovery, this.scanner, this.moduleRef);
      const reporting: ResolvedHandler = resolved.batch
        ? { ...resolved, batch: { ...resolved.batch, handler: this.reportingBatchErrors(consumer.name, resolved.batch.handler) } }
        : { ...resolved, handler: this.reportingErrors(consumer.name, resolved.handler) };
      return new Consumer(consumer, reporting, this.options.startRetryMs ?? 5000);
    });
    if (this.options.autoStart ?? true) await this.start();
  }

  /** Runs before the HTTP server closes, so health endpoints answer while the consumers drain. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts every consumer; one whose queue cannot be reached keeps trying while the others run. */
  async start(): Promise<void> {
    this.requireBooted();
    await Promise.all(this.consumers.map((consumer) => consumer.start()));
  }

  /**
   * Waits until every consumer runs, or `timeoutMs` has passed: which started, and why the
   * others have not (they keep trying). An app decides from it whether to go on without them.
   */
  async startedWithin(timeoutMs: number): Promise<ConsumersStarted> {
    this.requireBooted();
    const outcomes = await Promise.all(this.consumers.map(async (consumer) => ({ consumer, started: await consumer.startedWithin(timeoutMs) })));
    return {
      started: outcomes.filter((o) => o.started).map((o) => o.consumer.name),
      failing: outcomes.filter((o) => !o.started).map((o) => ({ consumer: o.consumer.name, error: o.consumer.startFailure ?? new Error('still starting') })),
    };
  }

  /** Drains every consumer at once, so the whole stop takes at most one drain timeout. */
  async stop(drainTimeoutMs?: number): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop(drainTimeoutMs)));
  }

  /** Each consumer's health by name; empty before the application boots. */
  health(): Record<string, ConsumerHealth> {
    return Object.fromEntries(this.consumers.map((consumer) => [consumer.name, consumer.health()]));
  }

  /** Retries and deferrals scheduled and not yet due, across consumers, latest due first: what SQS cannot list. */
  scheduledRetries(): ScheduledRetry[] {
    return this.consumers.flatMap((consumer) => consumer.scheduledRetries()).sort((a, b) => b.dueAt - a.dueAt);
  }

  private requireBooted(): void {
    if (this.consumers.length === 0) throw new Error('the SQS consumers are created when the application boots; call app.init() first');
  }

  private reportingErrors(consumer: string, handler: MessageHandler): MessageHandler {
    if (!this.options.onError) return handler;
    return async (message) => {
      try {
        await handler(message);
      } catch (error) {
        this.report(consumer, error, message);
        throw error;
      }
    };
  }

  /** Tells `onError` of each failed message of a batch: all of them when it threw, else those its result marks failed. */
  private reportingBatchErrors(consumer: string, handler: BatchHandler): BatchHandler {
    if (!this.options.onError) return handler;
    return async (messages, context) => {
      let results: Awaited<ReturnType<BatchHandler>>;
      try {
        results = await handler(messages, context);
      } catch (error) {
        for (const message of messages) this.report(consumer, error, message);
        throw error;
      }
      if (Array.isArray(results)) {
        const byId = new Map(messages.map((message) => [message.messageId, message]));
        for (const result of results) {
          const message = result.ok === false ? byId.get(result.messageId) : undefined;
          if (message && !result.ok) this.report(consumer, result.error, message);
        }
      }
      return results;
    };
  }

  private report(consumer: string, error: unknown, message: WorkerMessage): void {
    try {
      this.options.onError?.(error, { messageId: message.messageId, attempt: message.attempt, consumer });
    } catch (listenerError) {
      this.options.logger?.error({ err: listenerError }, 'onError listener threw; ignored');
    }
  }
}
