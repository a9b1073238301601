import type { Message } from '@aws-sdk/client-sqs';
import { redactUrlCredentials } from '@requeue/retry/engine';
import { Dependencies } from './backpressure/dependencies.js';
import { SqsWorkerConfigError, WorkerStoppingError } from './errors.js';
import { GroupSequencer } from './delivery/group-sequencer.js';
import { MessageSlots } from './receive/message-slots.js';
import { dwellSince } from './tenants/tenant-dwell.js';
import { Arrival, atReceiveLimit } from './message/arrival.js';
import { silentLogger } from './events/logger.js';
import { noMetrics } from './events/metrics.js';
import type { WorkerEvents } from './events/worker-events.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type SqsWorkerOptions } from './options.js';
import { Poller } from './receive/poller.js';
import { IdempotencyGuard } from './idempotency/guard.js';
import { taskProtectionFor } from './protection/resolve.js';
import type { TaskProtection } from './protection/task-protection.js';
import { deadLetterRoomProblem, readQueueFacts } from './sqs-io/queue-facts.js';
import { ScheduledRetries, type ScheduledRetry } from './delivery/scheduled-retries.js';
import { createDelivery, shareDelivery, type DeliveryShared } from './delivery/create-delivery.js';
import { decideGiveBack } from './delivery/decide-delivery.js';
import type { GiveBack } from './delivery/verdict.js';
import type { OutcomeExecutor } from './delivery/execute-outcome.js';
import type { MessageProcessor } from './delivery/process-message.js';
import type { VisibilityHeartbeat } from './delivery/heartbeat.js';
import { sleep } from './time/sleep.js';
import { every, type CancelTimer } from './time/timers.js';
import type { WorkerHealth } from './worker-health.js';

/** What the health body lists at most: a publisher naming hosts must not grow it without bound. */
const HEALTH_DEPENDENCIES = 20;
/** Per-dependency metrics go only to dependencies that push back, and to at most this many per flush. */
const METRIC_DEPENDENCIES = 50;

/** What exists only while the worker runs: made at start, from the queue's facts. */
interface Running {
  fifo: boolean;
  /** The queue's redrive `maxReceiveCount`, if it has one. */
  maxReceiveCount: number | undefined;
  heartbeat: VisibilityHeartbeat;
  executor: OutcomeExecutor;
  processor: MessageProcessor;
  poller: Poller;
}

/**
 * The engine: poll -> dispatch -> decode -> handle -> outcome. A success is deleted; a
 * retryable failure is copied with a delay and only then deleted; anything else is sent
 * to the DLQ with `x-dead-letter` and only then deleted.
 */
export class SqsWorker<Body = unknown> {
  private readonly options: ResolvedWorkerOptions;
  private readonly slots: MessageSlots;
  private readonly shared: DeliveryShared;
  private readonly groups = new GroupSequencer();
  private readonly scheduled = new ScheduledRetries();
  private readonly stopController = new AbortController();
  /** Aborted when shutdown begins, before the drain: FIFO heads waiting in place go back to SQS. */
  private readonly drainController = new AbortController();
  private running: Running | undefined;
  private stopMetricsFlush: CancelTimer | undefined;
  private stopping: Promise<void> | undefined;
  private readonly dependencies: Dependencies | undefined;
  private idempotency: IdempotencyGuard | undefined;
  private protection: TaskProtection | undefined;

  constructor(options: SqsWorkerOptions<Body>) {
    // With a schema the body is its output; without one, `Body` is the caller's own claim.
    this.options = resolveWorkerOptions(options as unknown as SqsWorkerOptions, { logger: silentLogger, metrics: noMetrics });
    // Known once started: the protection's lifetime follows the queue's visibility timeout.
    this.slots = new MessageSlots(
      this.options.maxInFlight,
      this.options.prefetch,
      this.options.now,
      { busy: () => this.protection?.busy(), idle: () => this.protection?.idle() },
      this.options.tenants,
    );
    this.shared = shareDelivery(this.options, this.scheduled);
    const { backpressure, maxInFlight, now, random, logger } = this.options;
    this.dependencies = backpressure
      ? new Dependencies(
          backpressure,
          maxInFlight,
          now,
          random,
          {
            onBreakerTransition: (key, state) =>
              state === 'open'
                ? logger.warn({ dependency: key }, 'dependency failing: circuit open; deferring its messages without using attempts')
                : logger.info({ dependency: key, state }, state === 'closed' ? 'dependency recovered: circuit closed' : 'dependency cool-down over: probing'),
            onFleetStoreHealth: (health) =>
              health.kind === 'unreachable'
                ? logger.warn({ err: health.error }, 'fleet store unreachable: each dependency paced by this worker alone until it answers')
                : logger.info({}, 'fleet store reachable again: pacing with the fleet'),
          },
          this.options.timers,
        )
      : undefined;
  }

  /**
   * Reads the queue's attributes (visibility timeout, redrive, FIFO), then polls until `stop()`.
   * Rejects with `SqsWorkerConfigError` when started twice.
   */
  async start(): Promise<void> {
    if (this.running) throw new SqsWorkerConfigError('start', 'the worker is already started');
    const { options } = this;
    const facts = await readQueueFacts(options.sqs, options.queueUrl, options, options.deadLetterQueueUrl);
    const noRoom = deadLetterRoomProblem(facts);
    if (noRoom)
      options.logger.warn({ queueUrl: redactUrlCredentials(options.queueUrl), deadLetterQueueUrl: redactUrlCredentials(options.deadLetterQueueUrl) }, noRoom);
    this.protection = taskProtectionFor(options.taskProtection, { ...options, visibilityTimeoutSeconds: facts.visibilityTimeoutSeconds });
    const idempotency = options.idempotency
      ? await IdempotencyGuard.create(options.idempotency, this.shared.queueName, options.handlerTimeoutMs, options.now, options.timers)
      : undefined;
    this.idempotency = idempotency;
    const { heartbeat, executor, processor } = createDelivery(options, facts, this.shared, {
      acknowledge: 'delete',
      idempotency,
      dependencies: this.dependencies,
      stop: this.stopController.signal,
      draining: this.drainController.signal,
      // A message behind its FIFO group's head waits for the head's batch: start it, rather than hold the group for the window.
      roomForMore: () => this.slots.running.free > 0 && this.groups.waitingBehindHeads === 0,
    });
    const poller = new Poller({
      sqs: options.sqs,
      queueUrl: options.queueUrl,
      limit: this.slots.held,
      // A paused dependency or an open circuit: receive only for handlers, not ahead of them.
      withheld: () => (this.dependencies?.anyBlocked() ? this.slots.ahead : 0),
      waitTimeSeconds: options.waitTimeSeconds,
      receiveBatchSize: options.receiveBatchSize,
      concurrency: options.pollers,
      gatherMs: options.batchWaitMs,
      backoff: options.pollBackoff,
      logger: options.logger,
      now: options.now,
      timers: options.timers,
      random: options.random,
      onMessage: (message) => this.dispatch(message),
      onPollError: (event) => this.shared.events.emit('pollError', event),
      receiveTook: (ms) => this.slots.receiveTook(ms),
      blockedUntil: () => idempotency?.blockedUntil() ?? this.dependencies?.receiveBlockedUntil(),
    });
    this.running = { fifo: facts.fifo, maxReceiveCount: facts.maxReceiveCount, heartbeat, executor, processor, poller };
    heartbeat.start();
    idempotency?.watch();
    this.stopMetricsFlush = every(options.timers, options.metricsFlushIntervalMs, () => void this.flushMetrics());
    poller.start();
    options.logger.info(
      {
        queueUrl: redactUrlCredentials(options.queueUrl),
        maxInFlight: options.maxInFlight,
        prefetch: options.prefetch,
        pollers: options.pollers,
        ...(options.batch ? { batch: { size: options.batch.size, windowMs: options.batch.windowMs } } : {}),
        ...facts,
      },
      'worker started',
    );
  }

  /**
   * Graceful shutdown: stop polling, let in-flight handlers finish for up to
   * `drainTimeoutMs`, then abort the rest and release their messages (visibility 0) so
   * they reappear at once, and flush every buffered delete and send. A message is
   * either finished or released, never both.
   */
  stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.stopping ??= this.shutDown(options.drainTimeoutMs ?? this.options.drainTimeoutMs);
    return this.stopping;
  }

  /** Liveness, readiness and the counts behind them, for a health check. */
  health(): WorkerHealth {
    const poller = this.running?.poller;
    const now = this.options.now();
    const { waitTimeSeconds, pollBackoff, backpressure } = this.options;
    const staleAfterMs = (waitTimeSeconds + 10) * 1000 + pollBackoff.maxMs;
    // A receive returns within its long poll, and a blocked dependency holds polling for at
    // most maxPauseMs. Free slots and no receive for longer than that: polling is stuck
    // (a hung call, or a pause it should not have taken), and the worker is not ready.
    const receivingWithinMs = (waitTimeSeconds + 10) * 1000 + (backpressure ? backpressure.maxPauseMs : 0);
    const stalled = poller !== undefined && this.slots.running.free > 0 && now - poller.lastReceiveAt > receivingWithinMs;
    return {
      live: poller !== undefined && (this.stopping !== undefined || now - poller.lastActivityAt < staleAfterMs),
      ready: poller !== undefined && this.stopping === undefined && poller.receiving && !stalled && (this.idempotency?.storeReachable ?? true),
      inFlight: this.slots.inFlight,
      maxInFlight: this.slots.running.capacity,
      lastPollActivityAt: poller?.lastActivityAt ?? 0,
      consecutivePollFailures: poller?.consecutiveFailures ?? 0,
      dependencies: this.dependencies?.snapshot(HEALTH_DEPENDENCIES) ?? [],
      ...(this.protection ? { taskProtection: { ...this.protection.counts } } : {}),
    };
  }

  /**
   * Subscribes to what the worker reports (`WorkerEvents`): messages received, handled and
   * settled, settle calls that failed, receives that failed. Returns the unsubscribe.
   *
   * @example
   * ```ts
   * worker.on('settled', ({ messageId, outcome }) => {
   *   if (outcome.kind === 'dead-letter') alertOnCall(messageId, outcome.reason);
   * });
   * ```
   */
  on<K extends keyof WorkerEvents>(name: K, listener: (event: WorkerEvents[K]) => void): () => void {
    return this.shared.events.on(name, listener);
  }

  /** Retries and deferrals this worker scheduled that are not yet due, newest first (bounded). */
  scheduledRetries(): ScheduledRetry[] {
    return this.scheduled.pending(this.options.now());
  }

  private flushMetrics(): Promise<void> {
    if (this.dependencies) this.options.metrics.dependencyStates(this.dependencies.snapshot(METRIC_DEPENDENCIES, true));
    const tenants = this.slots.takeTenants();
    if (tenants) this.options.metrics.tenants?.(tenants);
    return this.options.metrics.flush();
  }

  private async shutDown(drainTimeoutMs: number): Promise<void> {
    const { logger } = this.options;
    logger.info({ inFlight: this.slots.inFlight, drainTimeoutMs }, 'stopping: no new messages; draining');
    const pollersDone = this.running?.poller.stop();
    this.drainController.abort();
    // Prefetched messages, and messages waiting for a dependency, go back at once rather than wait out the drain.
    const givenBack = this.slots.giveBackWaiting();
    this.dependencies?.stop();
    // The drain timeout's timer ends with the drain: left running, it would hold the process open that long after stop().
    const drainWindow = new AbortController();
    const drained = await Promise.race([
      this.slots.whenNoneRunning().then(() => true),
      sleep(drainTimeoutMs, drainWindow.signal, this.options.timers).then(() => false),
    ]);
    drainWindow.abort();
    await pollersDone;
    if (!drained && this.slots.running.inUse > 0) {
      logger.warn({ inFlight: this.slots.inFlight }, 'drain timeout: aborting handlers and releasing their messages');
      this.stopController.abort(new WorkerStoppingError());
      await this.slots.whenNoneRunning();
    }
    await givenBack;
    await this.slots.whenNoneSettling();
    await this.shared.batch.flush();
    this.running?.heartbeat.stop();
    this.idempotency?.stop();
    await this.protection?.stop();
    this.stopMetricsFlush?.();
    await this.flushMetrics();
    logger.info({}, 'worker stopped');
  }

  /** Each received message keeps the slot the poller reserved for it, and starts when a running slot is free. */
  private dispatch(message: Message): void {
    const running = this.running;
    if (!running) return;
    const received = { messageId: message.MessageId ?? '', receiptHandle: message.ReceiptHandle ?? '' };
    const giveBack = async (why: GiveBack['why']) => void (await running.executor.execute(received, decideGiveBack({ kind: 'given-back', why })));
    if (this.stopping) {
      // Received by a poll that was under way when shutdown began: give it straight back.
      void giveBack('stopping').finally(() => this.slots.held.release(1));
      return;
    }
    const receivedAt = this.options.now();
    this.shared.events.emit('received', { messageId: received.messageId, receivedAt });
    // Tracked from now: a message may wait prefetched, behind its FIFO group or for its dependency.
    running.heartbeat.track(received.receiptHandle, received.messageId, receivedAt);
    const groupId = running.fifo ? message.Attributes?.MessageGroupId : undefined;
    const arrival = new Arrival(message);
    this.slots.admit(
      (slot) => {
        arrival.slot = slot;
        const run = () => running.processor.process(arrival, receivedAt);
        const processing =
          groupId === undefined
            ? run()
            : this.groups.run(groupId, {
                messageId: received.messageId,
                run,
                giveBack: () => giveBack('behind-its-group'),
                drop: () => running.executor.leave(received),
              });
        void processing.finally(slot.done);
      },
      () => giveBack('waiting'),
      this.options.tenants?.read(arrival),
      this.options.tenants && dwellSince(message),
      atReceiveLimit(message, running.maxReceiveCount),
    );
  }
}
