import { GetQueueAttributesCommand, type Message } from '@aws-sdk/client-sqs';
import { classifyFailure, ErrorType, type DeadLetterDecision, type RetryableFailure, type DeadLetterReason, type HopDecision, type RetryDecision } from '@requeue/retry';
import { callOutcomeOf, dependencyKeyOf } from './backpressure/call-outcome.js';
import { Dependencies } from './backpressure/dependencies.js';
import type { CallOutcome, DeferCause, DependencySnapshot } from './backpressure/dependency.js';
import { SqsBatchClient } from './batch-client.js';
import { deadLetterAttributes, retryCopyAttributes } from './copies.js';
import { decodeMessage, parseBody, type DecodedMessage } from './decode.js';
import { batchFailure, SqsWorkerConfigError } from './errors.js';
import { GroupSequencer } from './group-sequencer.js';
import { runWithTimeout } from './handler-runner.js';
import { MAX_VISIBILITY_SECONDS, VisibilityHeartbeat } from './heartbeat.js';
import { InFlightLimit } from './in-flight-limit.js';
import { silentLogger } from './logger.js';
import { attributeStrings } from './message-attributes.js';
import { noMetrics } from './metrics.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type SqsWorkerOptions } from './options.js';
import { Poller } from './poller.js';
import { sleep } from './sleep.js';
import type { WorkerMessage } from './worker-message.js';

export interface WorkerHealth {
  /** The poll loop is making progress (it may be backing off). */
  live: boolean;
  /** Started, not stopping, and the last receive succeeded. */
  ready: boolean;
  inFlight: number;
  maxInFlight: number;
  lastPollActivityAt: number;
  consecutivePollFailures: number;
  /** Each dependency's breaker and concurrency limit: details, never a reason to be unready. */
  dependencies: DependencySnapshot[];
}

/** Raised into a handler's signal when shutdown outlasts the drain timeout. */
export class WorkerStoppingError extends Error {
  constructor() {
    super('worker is stopping: drain timeout reached');
    this.name = 'WorkerStoppingError';
  }
}

interface QueueFacts {
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number | undefined;
  fifo: boolean;
}

/**
 * The engine: poll -> dispatch -> decode -> handle -> outcome. A success is deleted; a
 * retryable failure is copied with a delay and only then deleted; anything else is sent
 * to the DLQ with `x-dead-letter` and only then deleted.
 */
export class SqsWorker {
  private readonly options: ResolvedWorkerOptions;
  private readonly limit: InFlightLimit;
  /** Messages whose handler is done and whose delete, copy or dead letter is under way. */
  private readonly settling: InFlightLimit;
  private readonly batch: SqsBatchClient;
  private readonly groups = new GroupSequencer();
  private readonly stopController = new AbortController();
  private poller: Poller | undefined;
  private heartbeat: VisibilityHeartbeat | undefined;
  private facts: QueueFacts | undefined;
  private metricsTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  /** Messages received and not yet finished (slots also count receives under way). */
  private handling = 0;
  private readonly queueName: string;
  private readonly dependencies: Dependencies | undefined;

  constructor(options: SqsWorkerOptions) {
    this.options = resolveWorkerOptions(options, { logger: silentLogger, metrics: noMetrics });
    this.limit = new InFlightLimit(this.options.maxInFlight);
    this.settling = new InFlightLimit(this.options.maxInFlight);
    this.batch = new SqsBatchClient(this.options.sqs, this.options.batchWaitMs);
    this.queueName = this.options.queueUrl.split('/').pop() ?? this.options.queueUrl;
    const { backpressure, maxInFlight, now, random, logger } = this.options;
    this.dependencies = backpressure
      ? new Dependencies(backpressure, maxInFlight, now, random, (key, state) =>
          state === 'open'
            ? logger.warn({ dependency: key }, 'dependency failing: circuit open; deferring its messages without using attempts')
            : logger.info({ dependency: key, state }, state === 'closed' ? 'dependency recovered: circuit closed' : 'dependency cool-down over: probing'),
        )
      : undefined;
  }

  async start(): Promise<void> {
    if (this.poller) throw new SqsWorkerConfigError('start', 'the worker is already started');
    this.facts = await this.readQueueFacts();
    const { options } = this;
    this.heartbeat = new VisibilityHeartbeat({
      batch: this.batch,
      queueUrl: options.queueUrl,
      visibilityTimeoutSeconds: this.facts.visibilityTimeoutSeconds,
      logger: options.logger,
      now: options.now,
    });
    this.heartbeat.start();
    this.poller = new Poller({
      sqs: options.sqs,
      queueUrl: options.queueUrl,
      limit: this.limit,
      waitTimeSeconds: options.waitTimeSeconds,
      receiveBatchSize: options.receiveBatchSize,
      concurrency: options.pollers,
      gatherMs: options.batchWaitMs,
      backoff: options.pollBackoff,
      logger: options.logger,
      now: options.now,
      random: options.random,
      onMessage: (message) => this.dispatch(message),
      blockedUntil: () => this.dependencies?.receiveBlockedUntil(),
    });
    this.metricsTimer = setInterval(() => void this.flushMetrics(), options.metricsFlushIntervalMs);
    this.metricsTimer.unref();
    this.poller.start();
    options.logger.info(
      { queueUrl: options.queueUrl, maxInFlight: options.maxInFlight, pollers: options.pollers, ...this.facts },
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

  health(): WorkerHealth {
    const poller = this.poller;
    const now = this.options.now();
    const staleAfterMs = (this.options.waitTimeSeconds + 10) * 1000 + this.options.pollBackoff.maxMs;
    return {
      live: poller !== undefined && (this.stopping !== undefined || now - poller.lastActivityAt < staleAfterMs),
      ready: poller !== undefined && this.stopping === undefined && poller.receiving,
      inFlight: this.handling,
      maxInFlight: this.limit.capacity,
      lastPollActivityAt: poller?.lastActivityAt ?? 0,
      consecutivePollFailures: poller?.consecutiveFailures ?? 0,
      dependencies: this.dependencies?.snapshot() ?? [],
    };
  }

  private flushMetrics(): Promise<void> {
    if (this.dependencies) this.options.metrics.dependencyStates(this.dependencies.snapshot());
    return this.options.metrics.flush();
  }

  private async shutDown(drainTimeoutMs: number): Promise<void> {
    const { logger } = this.options;
    logger.info({ inFlight: this.handling, drainTimeoutMs }, 'stopping: no new messages; draining');
    const pollersDone = this.poller?.stop();
    // Messages waiting for a dependency go back at once rather than wait out the drain.
    this.dependencies?.stop();
    const drained = await Promise.race([this.limit.whenIdle().then(() => true), sleep(drainTimeoutMs).then(() => false)]);
    await pollersDone;
    if (!drained && this.limit.inUse > 0) {
      logger.warn({ inFlight: this.handling }, 'drain timeout: aborting handlers and releasing their messages');
      this.stopController.abort(new WorkerStoppingError());
      await this.limit.whenIdle();
    }
    await this.settling.whenIdle();
    await this.batch.flush();
    this.heartbeat?.stop();
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    await this.flushMetrics();
    logger.info({}, 'worker stopped');
  }

  private async readQueueFacts(): Promise<QueueFacts> {
    const { options } = this;
    const fifo = options.queueUrl.endsWith('.fifo');
    if (options.visibilityTimeoutSeconds !== undefined && options.maxReceiveCount !== undefined) {
      return { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds, maxReceiveCount: options.maxReceiveCount, fifo };
    }
    const response = await options.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }),
    );
    const redrive = response.Attributes?.RedrivePolicy;
    let maxReceiveCount = options.maxReceiveCount;
    if (maxReceiveCount === undefined && redrive) {
      const parsed = Number((JSON.parse(redrive) as { maxReceiveCount?: unknown }).maxReceiveCount);
      if (Number.isInteger(parsed) && parsed > 0) maxReceiveCount = parsed;
    }
    return {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? Number(response.Attributes?.VisibilityTimeout ?? 30),
      maxReceiveCount,
      fifo,
    };
  }

  private dispatch(message: Message): void {
    if (this.stopping) {
      // Received by a poll that was under way when shutdown began: give it straight back.
      void this.releaseReceived(message).finally(() => this.limit.release(1));
      return;
    }
    this.options.metrics.received(1);
    this.handling++;
    let holdsSlot = true;
    // Once the handler is done, what is left (the delete, the copy or the dead letter) is
    // a batched SQS call: the slot goes to the next message so its receive overlaps that
    // call. At most maxInFlight messages settle at once; beyond that a message keeps its slot.
    const handOffSlot = () => {
      if (holdsSlot && this.settling.reserve(1) === 1) {
        holdsSlot = false;
        this.limit.release(1);
      }
    };
    const groupId = message.Attributes?.MessageGroupId;
    void this.groups
      .run(this.facts?.fifo ? groupId : undefined, () => this.process(message, handOffSlot))
      .finally(() => {
        this.handling--;
        if (holdsSlot) this.limit.release(1);
        else this.settling.release(1);
      });
  }

  private async process(raw: Message, handOffSlot: () => void): Promise<void> {
    const { options } = this;
    const receivedAt = options.now();
    const decoded = decodeMessage(raw, receivedAt);
    const message = decoded.message;
    try {
      if (!decoded.ok) {
        await this.deadLetter(message, decoded.reason, decoded.errorType, decoded.error);
        return;
      }
      if (message.overrideProblem) {
        options.logger.warn({ messageId: message.messageId, problem: message.overrideProblem }, 'ignoring invalid x-retry-policy');
      }
      const early = options.retryPolicy.deferUntilNotBefore(message.state, receivedAt, options.random);
      if (early) {
        await this.requeue(message, early);
        return;
      }
      await this.handle(message, receivedAt, handOffSlot);
    } catch (unexpected) {
      // Nothing a message does may end the worker. The message is left as it is and
      // reappears after its visibility timeout.
      options.logger.error({ messageId: message.messageId, err: unexpected }, 'unexpected error while processing; the message will reappear');
    }
  }

  private async handle(message: DecodedMessage, receivedAt: number, handOffSlot: () => void): Promise<void> {
    const { options } = this;
    const heartbeat = this.heartbeat!;
    // Tracked from now: a message may wait here for its dependency before it runs.
    heartbeat.track(message.receiptHandle, message.messageId, receivedAt);
    const input = this.handlerInput(message);
    const gate = this.dependencies?.get(dependencyKeyOf(options.dependencyKey, input, this.queueName));
    const admission = gate ? await gate.admit(message.state.attempt === 1) : undefined;
    if (admission && admission.kind !== 'run') {
      await heartbeat.untrack(message.receiptHandle);
      if (admission.kind === 'stopped') await this.release(message);
      else await this.deferUnrun(message, gate!.key, admission.untilMs, admission.cause);
      return;
    }
    const started = options.now();
    const outcome = await runWithTimeout((signal) => options.handler({ ...input, signal }), options.handlerTimeoutMs, this.stopController.signal);
    // The heartbeat stops, and any extension under way lands, before the delete.
    await heartbeat.untrack(message.receiptHandle);
    handOffSlot();
    const durationMs = options.now() - started;
    const failure = outcome.ok || outcome.stopped ? undefined : classifyFailure(outcome.error, options.now(), options.retryPolicy.config.classifier);
    const call: CallOutcome = outcome.ok ? { kind: 'success' } : failure ? callOutcomeOf(failure) : { kind: 'neutral' };
    // The gate hears how the call went before the message's fate is decided.
    if (admission?.kind === 'run') gate!.finish(admission.ticket, call);
    if (outcome.ok) {
      options.metrics.succeeded(message.state.attempt, durationMs);
      await this.deleteOriginal(message, 'success');
      return;
    }
    options.metrics.failed(durationMs);
    if (!failure) {
      await this.release(message);
      return;
    }
    // Systemic, and the dependency's state confirms it (paused, or its breaker now open):
    // defer without using an attempt. An isolated 503 with the breaker closed is the
    // message's failure, so a message that alone keeps failing cannot retry forever.
    const blockedUntil = call.kind === 'neutral' ? undefined : gate?.blockedUntil();
    if (failure.retryable && blockedUntil !== undefined) {
      await this.deferFailed(message, failure, gate!.key, blockedUntil, call.kind === 'rate-limited' ? 'rate-limited' : 'breaker-open');
      return;
    }
    const decision = options.retryPolicy.decideClassified(message.state, failure, options.now(), options.random, message.override);
    if (decision.action === 'dead-letter') {
      await this.deadLetter(message, decision.reason, decision.errorType, decision.error);
      return;
    }
    const fields = {
      messageId: message.messageId,
      originalMessageId: message.state.originalMessageId,
      attempt: message.state.attempt,
      errorType: decision.errorType,
      delaySeconds: decision.delaySeconds,
      error: decision.error,
    };
    if (message.state.attempt === 1) options.logger.warn(fields, 'handler failed; retrying');
    else options.logger.info(fields, 'handler failed again; retrying');
    await this.requeue(message, decision);
  }

  private handlerInput(message: DecodedMessage): Omit<WorkerMessage, 'signal'> {
    return {
      body: parseBody(message.payload),
      rawBody: message.payload,
      attributes: attributeStrings(message.payloadAttributes),
      attempt: message.state.attempt,
      firstReceivedAt: message.state.firstReceivedAt,
      idempotencyKey: message.state.originalMessageId,
      messageId: message.messageId,
      receiveCount: message.receiveCount,
    };
  }

  /** A systemic failure the dependency's state confirms: back to SQS until it is due, attempt unchanged. */
  private async deferFailed(message: DecodedMessage, failure: RetryableFailure, key: string, untilMs: number, cause: DeferCause): Promise<void> {
    const { options } = this;
    const decision = options.retryPolicy.defer(message.state, failure, untilMs - options.now(), options.now(), message.override);
    if (decision.action === 'hop') {
      options.logger.info(
        { messageId: message.messageId, originalMessageId: message.state.originalMessageId, attempt: message.state.attempt, errorType: failure.errorType, delaySeconds: decision.delaySeconds, dependency: key, cause },
        'dependency rate-limiting or down; retrying without using an attempt',
      );
    }
    await this.defer(message, decision, cause);
  }

  /** A message that never ran, because its dependency is open or paused: back to SQS, attempt unchanged. */
  private deferUnrun(message: DecodedMessage, key: string, untilMs: number, cause: DeferCause): Promise<void> {
    const { state } = message;
    const reason = { retryable: true as const, errorType: state.lastErrorType ?? ErrorType.TEMPORARY, message: state.lastError ?? `deferred: dependency ${key} is ${cause}` };
    const now = this.options.now();
    return this.defer(message, this.options.retryPolicy.defer(state, reason, untilMs - now, now, message.override), cause);
  }

  /**
   * Hands a deferred message back without using an attempt: a copy whose `x-retry` keeps
   * the attempt, delayed until the dependency is due. Not ChangeMessageVisibility: the
   * message would come back with its receive count one higher, which the worker counts
   * as an attempt (that is how crash loops are caught) and SQS counts toward the redrive
   * maxReceiveCount. A FIFO queue has no per-message delay, so it does hide the original.
   */
  private async defer(message: DecodedMessage, decision: HopDecision | DeadLetterDecision, cause: DeferCause): Promise<void> {
    if (decision.action === 'dead-letter') {
      await this.deadLetter(message, decision.reason, decision.errorType, decision.error);
      return;
    }
    this.options.metrics.deferred(cause);
    if (this.facts?.fifo) {
      await this.hideFor(message, this.secondsUntilDue(message, decision));
      return;
    }
    await this.requeue(message, decision);
  }

  /** Retry: send the copy first, delete the original only once the copy is safe. */
  private async requeue(message: DecodedMessage, decision: RetryDecision | HopDecision): Promise<void> {
    const { options } = this;
    const attributes = this.facts?.fifo ? undefined : retryCopyAttributes(message, decision.state);
    if (attributes) {
      const sent = await this.batch.send(options.queueUrl, { body: message.sqsBody, attributes, delaySeconds: decision.delaySeconds });
      if (sent.ok) {
        if (decision.action === 'retry') options.metrics.retried(decision.errorType, decision.delaySeconds);
        await this.deleteOriginal(message, 'requeued');
        return;
      }
      options.logger.warn(
        { messageId: message.messageId, err: batchFailure('SendMessageBatch', options.queueUrl, message, sent) },
        'could not send the retry copy; delaying the original instead',
      );
    }
    await this.delayInPlace(message, decision);
  }

  /**
   * The visibility transport: the original message stays, hidden for the delay. Used for
   * FIFO queues (no per-message delays), and when a copy cannot carry the retry state.
   * Each receive raises ApproximateReceiveCount, which SQS compares with the redrive
   * maxReceiveCount: a message at that count is dead-lettered here, with its reason,
   * rather than moved by SQS without one.
   */
  private async delayInPlace(message: DecodedMessage, decision: RetryDecision | HopDecision): Promise<void> {
    const { options } = this;
    const maxReceiveCount = this.facts?.maxReceiveCount;
    if (maxReceiveCount !== undefined && message.receiveCount >= maxReceiveCount) {
      await this.deadLetter(message, 'max-attempts', decision.errorType, decision.error);
      return;
    }
    const seconds = this.secondsUntilDue(message, decision);
    if ((await this.hideFor(message, seconds)) && decision.action === 'retry') options.metrics.retried(decision.errorType, seconds);
  }

  /** The decision's wait, bounded by what SQS allows: 12 hours of invisibility from the first receive. */
  private secondsUntilDue(message: DecodedMessage, decision: RetryDecision | HopDecision): number {
    const now = this.options.now();
    const waitSeconds =
      decision.action === 'hop' && decision.state.notBefore !== undefined ? Math.ceil((decision.state.notBefore - now) / 1000) : decision.delaySeconds;
    const elapsedSeconds = Math.ceil((now - message.state.firstReceivedAt) / 1000);
    return Math.max(0, Math.min(waitSeconds, MAX_VISIBILITY_SECONDS - elapsedSeconds - 1));
  }

  /** Keeps the original hidden for `seconds`; it reappears then, with its receive count one higher. */
  private async hideFor(message: DecodedMessage, seconds: number): Promise<boolean> {
    const changed = await this.batch.changeVisibility(this.options.queueUrl, message.receiptHandle, seconds);
    if (changed.ok) return true;
    this.options.logger.error(
      { messageId: message.messageId, err: batchFailure('ChangeMessageVisibilityBatch', this.options.queueUrl, message, changed) },
      'could not delay the message; it reappears after its visibility timeout',
    );
    return false;
  }

  /** Dead-letter: send to the DLQ with the reason, delete the original only once it is there. */
  private async deadLetter(message: DecodedMessage, reason: DeadLetterReason, errorType: string, error: string): Promise<void> {
    const { options } = this;
    const record = {
      reason,
      errorType,
      error,
      attempts: message.state.attempt,
      firstReceivedAt: message.state.firstReceivedAt,
      deadLetteredAt: options.now(),
      sourceQueue: options.queueUrl,
      originalMessageId: message.state.originalMessageId,
    };
    const { attributes, carriesRecord } = deadLetterAttributes(message, record);
    const fifoDlq = options.deadLetterQueueUrl.endsWith('.fifo');
    const sent = await this.batch.send(options.deadLetterQueueUrl, {
      body: message.sqsBody,
      attributes,
      ...(fifoDlq ? { groupId: message.groupId ?? 'requeue', deduplicationId: message.messageId } : {}),
    });
    const fields = { messageId: message.messageId, originalMessageId: record.originalMessageId, attempt: record.attempts, reason, errorType, error };
    if (!sent.ok) {
      options.logger.error(
        { ...fields, err: batchFailure('SendMessageBatch', options.deadLetterQueueUrl, message, sent) },
        'could not send to the DLQ; the message stays and reappears',
      );
      return;
    }
    options.metrics.deadLettered(reason);
    if (carriesRecord) options.logger.error(fields, 'dead-lettered');
    else options.logger.error({ ...fields, deadLetter: record }, 'dead-lettered without x-dead-letter: the message already has 10 attributes');
    await this.deleteOriginal(message, 'dead-lettered');
  }

  private async deleteOriginal(message: DecodedMessage, after: 'success' | 'requeued' | 'dead-lettered'): Promise<void> {
    const deleted = await this.batch.delete(this.options.queueUrl, message.receiptHandle);
    if (deleted.ok) return;
    // The message will reappear: after a copy or a dead letter, it now exists twice.
    if (after !== 'success') this.options.metrics.duplicateRisk();
    this.options.logger.warn(
      { messageId: message.messageId, after, err: batchFailure('DeleteMessageBatch', this.options.queueUrl, message, deleted) },
      after === 'success' ? 'delete failed; the message will be delivered again' : 'delete failed after the copy was sent; a duplicate will follow',
    );
  }

  private release(message: DecodedMessage): Promise<void> {
    return this.releaseReceived({ MessageId: message.messageId, ReceiptHandle: message.receiptHandle });
  }

  /** Makes a message visible again at once (visibility 0), for another worker to take. */
  private async releaseReceived(message: Pick<Message, 'MessageId' | 'ReceiptHandle'>): Promise<void> {
    const released = await this.batch.changeVisibility(this.options.queueUrl, message.ReceiptHandle ?? '', 0);
    if (!released.ok) {
      const err = batchFailure('ChangeMessageVisibilityBatch', this.options.queueUrl, { messageId: message.MessageId ?? '' }, released);
      this.options.logger.warn({ messageId: message.MessageId, err }, 'could not release message at shutdown');
    }
  }
}

