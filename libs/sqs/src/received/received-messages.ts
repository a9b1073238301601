import type { Message } from '@aws-sdk/client-sqs';
import { createDelivery, queueNameOf, shareDelivery, type DeliveryShared } from '../delivery/create-delivery.js';
import { decideGiveBack } from '../delivery/decide-delivery.js';
import { IdempotencyGuard } from '../idempotency/guard.js';
import { Arrival } from '../message/arrival.js';
import { silentLogger } from '../events/logger.js';
import { noMetrics } from '../events/metrics.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type SqsWorkerOptions } from '../options.js';
import { readQueueFacts, type QueueFacts } from '../sqs-io/queue-facts.js';
import { ScheduledRetries } from '../delivery/scheduled-retries.js';
import { settleInOrder } from './settle-in-order.js';

/**
 * What `ReceivedMessages` takes: the worker's options, less those of its own receiving
 * (pollers, prefetch, long polls, heartbeat, backpressure, tenants, task protection):
 * whoever received the messages owns those.
 */
export type ReceivedOptions<Body = unknown> = Omit<
  SqsWorkerOptions<Body>,
  | 'waitTimeSeconds'
  | 'receiveBatchSize'
  | 'prefetch'
  | 'pollers'
  | 'pollBackoff'
  | 'backpressure'
  | 'taskProtection'
  | 'tenants'
  | 'fifoRetryInPlaceSeconds'
  | 'drainTimeoutMs'
  | 'metricsFlushIntervalMs'
>;

/** One call's bound: handlers stop, and what they held is given back, before `deadline` (epoch ms). */
export interface ProcessBounds {
  /** Epoch ms. @default no bound but each handler's `handlerTimeoutMs` */
  deadline?: number;
}

/**
 * The worker's path for messages something else received: decode, validation,
 * classification, the retry policy, idempotency and tracing, settled the same way (a
 * delayed copy, the DLQ with its reason, a hidden original) except that a message done
 * with is not deleted but reported done. `process` answers which messages stay in the
 * queue, for the receiver to report as failed (Lambda's `batchItemFailures`).
 */
export class ReceivedMessages {
  private readonly shared: DeliveryShared;

  private constructor(
    private readonly options: ResolvedWorkerOptions,
    private readonly facts: QueueFacts,
    private readonly idempotency: IdempotencyGuard | undefined,
  ) {
    this.shared = shareDelivery(options, new ScheduledRetries());
  }

  /** Validates the options (naming the one that is wrong) and reads the queue's redrive policy unless `maxReceiveCount` is given. */
  static async create<Body>(options: ReceivedOptions<Body>): Promise<ReceivedMessages> {
    const resolved = resolveWorkerOptions({ ...options, backpressure: false } as unknown as SqsWorkerOptions, { logger: silentLogger, metrics: noMetrics });
    const given = { visibilityTimeoutSeconds: resolved.visibilityTimeoutSeconds ?? 30, maxReceiveCount: resolved.maxReceiveCount, fifoRetryInPlaceSeconds: 0 };
    const facts = await readQueueFacts(resolved.sqs, resolved.queueUrl, given, resolved.deadLetterQueueUrl);
    const idempotency = resolved.idempotency
      ? await IdempotencyGuard.create(resolved.idempotency, queueNameOf(resolved.queueUrl), resolved.handlerTimeoutMs, resolved.now, resolved.timers)
      : undefined;
    // A retry waits in SQS, never in the process: a wait in place would be billed time.
    return new ReceivedMessages(resolved, { ...facts, retryInPlaceSeconds: 0, deferInPlaceSeconds: 0 }, idempotency);
  }

  /** Gives the idempotency store the invocation's Lambda context, as Powertools expects of a function. */
  useLambdaContext(context: { getRemainingTimeInMillis(): number }): void {
    this.idempotency?.useLambdaContext(context);
  }

  /**
   * Runs and settles each message. On a FIFO queue each group's messages run in order and
   * a group stops at its first message that stays: the ones after it are given back
   * unrun. Returns the ids of the messages that stay in the queue.
   */
  async process(messages: readonly Message[], bounds: ProcessBounds = {}): Promise<Set<string>> {
    const now = this.options.now();
    const stop = new AbortController();
    const budgetMs = bounds.deadline === undefined ? this.options.handlerTimeoutMs : Math.max(1, bounds.deadline - now);
    const cancelDeadline = bounds.deadline === undefined ? undefined : this.options.timers.after(budgetMs, () => stop.abort());
    const options = { ...this.options, handlerTimeoutMs: Math.min(this.options.handlerTimeoutMs, budgetMs) };
    const { executor, processor } = createDelivery(options, this.facts, this.shared, {
      acknowledge: 'report',
      idempotency: this.idempotency,
      dependencies: undefined,
      stop: stop.signal,
      draining: stop.signal,
      // Every message of the call is in hand: a batch waits only for those on their way to the handler.
      roomForMore: () => false,
    });
    try {
      for (const message of messages) this.shared.events.emit('received', { messageId: message.MessageId ?? '', receivedAt: now });
      return await settleInOrder(messages, this.facts.fifo, options.maxInFlight, {
        run: (message) => processor.process(new Arrival(message), now),
        giveBack: (message) =>
          executor.execute(
            { messageId: message.MessageId ?? '', receiptHandle: message.ReceiptHandle ?? '' },
            decideGiveBack({ kind: 'given-back', why: 'behind-its-group' }),
          ),
      });
    } finally {
      cancelDeadline?.();
    }
  }

  /** Writes the metrics gathered so far (EMF: one line on stdout), as a runtime does at the end of each invocation. */
  flushMetrics(): Promise<void> {
    return this.options.metrics.flush();
  }
}
