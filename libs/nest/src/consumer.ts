import { QueueUnavailableError, SqsWorker, type WorkerHealth, type WorkerLogger, type ScheduledRetry } from '@requeue/sqs';
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
  private startError: Error | undefined;
  private readonly whenStarted: Promise<void>;
  private resolveStarted!: () => void;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly logger: WorkerLogger | undefined;

  constructor(
    options: ResolvedConsumer,
    { handler, batch, schema, idempotency }: ResolvedHandler,
    private readonly startRetryMs: number,
  ) {
    const { name: _name, handlerName: _handlerName, batchSize, batchWindowMs, ...engine } = options;
    this.name = options.name;
    // The consumer's batch settings (WORKER_BATCH_*) over the decorator's: the operator tunes what the code chose.
    const handling = batch
      ? { batch: { ...batch, ...(batchSize === undefined ? {} : { size: batchSize }), ...(batchWindowMs === undefined ? {} : { windowMs: batchWindowMs }) } }
      : { handler };
    // The handler's own idempotency, from @SqsHandler, over the consumer's.
    this.worker = new SqsWorker({ ...engine, ...handling, ...(schema ? { schema } : {}), ...(idempotency ? { idempotency } : {}) });
    this.logger = options.logger;
    this.whenStarted = new Promise((resolve) => (this.resolveStarted = resolve));
  }

  /** Resolves true once the engine runs, false if it still has not after `timeoutMs`. */
  async startedWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const started = await Promise.race([this.whenStarted.then(() => true), timedOut]);
    clearTimeout(timer);
    return started;
  }

  /** Why the last start failed, while it has not started. */
  get startFailure(): Error | undefined {
    return this.started ? undefined : this.startError;
  }

  /** Resolves once the engine runs or its first attempt failed (then it retries on its own). */
  async start(delayMs = this.startRetryMs): Promise<void> {
    if (this.stopped || this.started) return;
    try {
      await this.worker.start();
      this.started = true;
      this.startError = undefined;
      this.resolveStarted();
    } catch (error) {
      this.startError = error instanceof Error ? error : new Error(String(error));
      // What to do is in the message of a queue that cannot be read: its stack adds nothing.
      const details = error instanceof QueueUnavailableError ? { reason: error.reason } : { err: error };
      this.logger?.error(
        { consumer: this.name, ...details, retryInMs: delayMs },
        `consumer ${this.name} could not start: ${this.startError.message}; trying again in ${Math.round(delayMs / 1000)} s`,
      );
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
    return { live: true, ready: false, starting: true, error: this.startError?.message ?? 'not started' };
  }

  scheduledRetries(): ScheduledRetry[] {
    return this.started ? this.worker.scheduledRetries() : [];
  }
}
