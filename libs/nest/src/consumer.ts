import { SqsWorker, type WorkerHealth, type WorkerLogger, type ScheduledRetry } from '@requeue/sqs';
import type { ResolvedHandler } from './handler-resolver.js';
import type { ResolvedConsumer } from './consumer-list.js';

const MAX_START_RETRY_MS = 60_000;

/** A consumer's health: the engine's, or why it has not started yet. */
export type ConsumerHealth = WorkerHealth | { live: true; ready: false; starting: true; error: string };

/**
 * One consumer's engine. If its queue cannot be reached when it starts (deleted, no
 * permission, an outage), it keeps trying in the background, doubling the wait to a
 * minute, and reports not-ready meanwhile: the other consumers run regardless.
 */
export class Consumer {
  readonly name: string;
  private readonly worker: SqsWorker;
  private started = false;
  private stopped = false;
  private startError: string | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly logger: WorkerLogger | undefined;

  constructor(
    options: ResolvedConsumer,
    { handler, schema, idempotency }: ResolvedHandler,
    private readonly startRetryMs: number,
  ) {
    const { name: _name, handlerName: _handlerName, ...engine } = options;
    this.name = options.name;
    // The handler's own idempotency, from @SqsHandler, over the consumer's.
    this.worker = new SqsWorker({ ...engine, handler, ...(schema ? { schema } : {}), ...(idempotency ? { idempotency } : {}) });
    this.logger = options.logger;
  }

  /** Resolves once the engine runs or its first attempt failed (then it retries on its own). */
  async start(delayMs = this.startRetryMs): Promise<void> {
    if (this.stopped || this.started) return;
    try {
      await this.worker.start();
      this.started = true;
      this.startError = undefined;
    } catch (error) {
      this.startError = error instanceof Error ? error.message : String(error);
      this.logger?.error({ consumer: this.name, err: error, retryInMs: delayMs }, 'consumer could not start; retrying while the others run');
      this.retryTimer = setTimeout(() => void this.start(Math.min(delayMs * 2, MAX_START_RETRY_MS)), delayMs);
      this.retryTimer.unref();
    }
  }

  async stop(drainTimeoutMs?: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.started) await this.worker.stop(drainTimeoutMs === undefined ? {} : { drainTimeoutMs });
  }

  health(): ConsumerHealth {
    if (this.started) return this.worker.health();
    return { live: true, ready: false, starting: true, error: this.startError ?? 'not started' };
  }

  scheduledRetries(): ScheduledRetry[] {
    return this.started ? this.worker.scheduledRetries() : [];
  }
}
