import type { DeadLetterDecision, DeadLetterReason, HopDecision, RetryDecision } from '@requeue/retry';
import type { DeferCause } from './backpressure/dependency.js';
import type { SqsBatchClient } from './batch-client.js';
import type { EntryOutcome } from './batcher.js';
import { deadLetterAttributes, retryCopyAttributes } from './copies.js';
import type { DecodedMessage } from './decode.js';
import { batchFailure } from './errors.js';
import type { Settled } from './group-sequencer.js';
import { MAX_VISIBILITY_SECONDS, type VisibilityHeartbeat } from './heartbeat.js';
import type { ResolvedWorkerOptions } from './options.js';
import type { QueueFacts } from './queue-facts.js';
import type { ScheduledRetries } from './scheduled-retries.js';
import { formatAwsTraceHeader } from './tracing/trace-header.js';
import type { UnusedReceives } from './unused-receives.js';

export interface SettleContext {
  options: ResolvedWorkerOptions;
  batch: SqsBatchClient;
  facts: QueueFacts;
  heartbeat: VisibilityHeartbeat;
  unusedReceives: UnusedReceives;
  scheduled: ScheduledRetries;
}

/** A wait before the message runs again: a retry uses an attempt, a deferral does not. */
type Wait = { decision: RetryDecision | HopDecision; kind: 'retry' } | { decision: HopDecision; kind: 'deferred'; cause: DeferCause | 'not-before' };

/**
 * Every way a received message leaves the worker's hands: deleted after success, sent
 * back to wait (a retry or a deferral), dead-lettered, or released. Each first stops the
 * message's heartbeat, so no extension races the call that settles it. A write is made
 * only once the one before it is safe: a copy before the delete of its original, a dead
 * letter before the delete.
 */
export class MessageSettler {
  constructor(private readonly context: SettleContext) {}

  async ack(message: DecodedMessage): Promise<Settled> {
    const extending = this.context.heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    if (!(await this.deleteOriginal(message, 'success'))) return 'stays';
    message.trace?.settled({ kind: 'deleted' });
    return 'gone';
  }

  /** The next attempt, after the decision's delay. */
  retry(message: DecodedMessage, decision: RetryDecision | HopDecision): Promise<Settled> {
    return this.wait(message, { decision, kind: 'retry' });
  }

  /** Back to SQS until the dependency is due, attempt unchanged; past the deadline, a dead letter. */
  defer(message: DecodedMessage, decision: HopDecision | DeadLetterDecision, cause: DeferCause): Promise<Settled> {
    if (decision.action === 'dead-letter') return this.deadLetter(message, decision.reason, decision.errorType, decision.error);
    this.context.options.metrics.deferred(cause);
    return this.wait(message, { decision, kind: 'deferred', cause });
  }

  /** Arrived before its `notBefore` (a wait longer than one SQS delay): back for the rest, no attempt used. */
  waitOut(message: DecodedMessage, hop: HopDecision): Promise<Settled> {
    return this.wait(message, { decision: hop, kind: 'deferred', cause: 'not-before' });
  }

  /** To the DLQ with the reason in `x-dead-letter`; the original is deleted only once it is there. */
  async deadLetter(message: DecodedMessage, reason: DeadLetterReason, errorType: string, error: string): Promise<Settled> {
    const { options, batch, heartbeat } = this.context;
    const extending = heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    const record = {
      reason,
      errorType,
      error,
      attempts: message.state.attempt,
      firstReceivedAt: message.state.firstReceivedAt,
      deadLetteredAt: options.now(),
      sourceQueue: options.queueUrl,
      originalMessageId: message.state.originalMessageId,
      ...(message.groupId === undefined ? {} : { messageGroupId: message.groupId }),
    };
    const { attributes, carriesRecord } = deadLetterAttributes(message, record, options.retryStateSigner);
    // A FIFO DLQ needs a group and a deduplication id. Each dead letter is a group of its
    // own: SQS hides a group's later messages while its first is read, so one group per
    // source group would let an operator see one dead letter per group. The source group
    // travels in x-dead-letter for replay; the id makes a resend after a lost answer a no-op.
    const fifoDlq = options.deadLetterQueueUrl.endsWith('.fifo');
    const sent = await batch.send(options.deadLetterQueueUrl, {
      body: message.sqsBody,
      attributes,
      ...traceHeaderOf(message),
      ...(fifoDlq ? { groupId: message.messageId, deduplicationId: message.messageId } : {}),
    });
    const fields = { messageId: message.messageId, originalMessageId: record.originalMessageId, attempt: record.attempts, reason, errorType, error };
    if (!sent.ok) {
      options.logger.error({ ...fields, err: batchFailure('SendMessageBatch', options.deadLetterQueueUrl, message, sent) }, 'could not send to the DLQ; the message stays and reappears');
      return 'stays';
    }
    options.metrics.deadLettered(reason);
    message.trace?.settled({ kind: 'dead-letter', reason, errorType, error });
    if (carriesRecord) options.logger.error(fields, 'dead-lettered');
    else options.logger.error({ ...fields, deadLetter: record }, 'dead-lettered without x-dead-letter: the message already has 10 attributes');
    return (await this.deleteOriginal(message, 'dead-lettered')) ? 'gone' : 'stays';
  }

  /**
   * Visible again at once (visibility 0), for this or another worker to take. Used at
   * shutdown and for a FIFO group's messages given back behind a failed head: none of
   * them ran, so the receive they used is remembered as no attempt.
   */
  async release(message: Pick<DecodedMessage, 'messageId' | 'receiptHandle' | 'trace'>): Promise<Settled> {
    const released = await this.hideUnrun(message, 0);
    if (released.ok) message.trace?.settled({ kind: 'released' });
    else {
      const { options } = this.context;
      options.logger.warn({ messageId: message.messageId, err: batchFailure('ChangeMessageVisibilityBatch', options.queueUrl, message, released) }, 'could not release the message; it reappears after its visibility timeout');
    }
    return 'stays';
  }

  /**
   * Hidden for `seconds` without running, and not counted as an attempt (this worker
   * remembers the receive): used while the idempotency store cannot be reached.
   */
  async holdBack(message: DecodedMessage, seconds: number): Promise<Settled> {
    await this.hideUnrun(message, seconds);
    return 'stays';
  }

  /** A message that did not run, visible again after `seconds`; its receive is remembered as no attempt. */
  private async hideUnrun(message: Pick<DecodedMessage, 'messageId' | 'receiptHandle'>, seconds: number): Promise<EntryOutcome> {
    const { options, batch, heartbeat, unusedReceives } = this.context;
    const extending = heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    const hidden = await batch.changeVisibility(options.queueUrl, message.receiptHandle, seconds);
    if (hidden.ok) unusedReceives.add(message.messageId);
    return hidden;
  }

  /**
   * The one place that chooses how a message waits. A copy with `DelaySeconds` and a new
   * `x-retry`, then the original's delete: the receive count stays clean. The visibility
   * transport (the original hidden for the wait) where a copy cannot work: FIFO queues
   * have no per-message delay and a copy would go to the back of its group; a copy that
   * cannot carry the state within SQS limits, or whose send failed.
   */
  private async wait(message: DecodedMessage, wait: Wait): Promise<Settled> {
    const { options, batch, facts, heartbeat } = this.context;
    const extending = heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    const { decision } = wait;
    const attributes = facts.fifo ? undefined : retryCopyAttributes(message, decision.state, options.retryStateSigner);
    if (attributes) {
      const sent = await batch.send(options.queueUrl, { body: message.sqsBody, attributes, delaySeconds: decision.delaySeconds, ...traceHeaderOf(message) });
      if (sent.ok) {
        this.scheduled(message, wait, decision.delaySeconds, 'copy');
        return (await this.deleteOriginal(message, 'requeued')) ? 'gone' : 'stays';
      }
      options.logger.warn({ messageId: message.messageId, err: batchFailure('SendMessageBatch', options.queueUrl, message, sent) }, 'could not send the retry copy; delaying the original instead');
    }
    return this.hideOriginal(message, wait);
  }

  /**
   * The visibility transport. Each receive raises ApproximateReceiveCount, which SQS
   * compares with the redrive maxReceiveCount: a message at that count is dead-lettered
   * here, with its reason, rather than moved by SQS without one.
   */
  private async hideOriginal(message: DecodedMessage, wait: Wait): Promise<Settled> {
    const { options, batch, facts, unusedReceives } = this.context;
    const { decision } = wait;
    if (facts.maxReceiveCount !== undefined && message.receiveCount >= facts.maxReceiveCount) {
      return this.deadLetter(message, 'max-attempts', decision.errorType, decision.error);
    }
    const seconds = this.secondsUntilDue(message, decision);
    const hidden = await batch.changeVisibility(options.queueUrl, message.receiptHandle, seconds);
    if (!hidden.ok) {
      options.logger.error(
        { messageId: message.messageId, err: batchFailure('ChangeMessageVisibilityBatch', options.queueUrl, message, hidden) },
        'could not delay the message; it reappears after its visibility timeout',
      );
      return 'stays';
    }
    if (wait.kind === 'deferred') unusedReceives.add(message.messageId);
    this.scheduled(message, wait, seconds, 'visibility');
    return 'stays';
  }

  private scheduled(message: DecodedMessage, wait: Wait, delaySeconds: number, transport: 'copy' | 'visibility'): void {
    const { options, scheduled } = this.context;
    const { decision } = wait;
    if (decision.action === 'retry') options.metrics.retried(decision.errorType, delaySeconds);
    message.trace?.settled(
      wait.kind === 'retry'
        ? { kind: 'retry', nextAttempt: decision.state.attempt, delaySeconds, errorType: decision.errorType, transport }
        : { kind: 'deferred', delaySeconds, cause: wait.cause, transport },
    );
    scheduled.record({
      messageId: message.messageId,
      originalMessageId: message.state.originalMessageId,
      attempt: decision.state.attempt,
      errorType: decision.errorType,
      lastError: decision.error,
      dueAt: options.now() + delaySeconds * 1000,
      kind: wait.kind,
      transport,
      ...(message.trace?.carried ? { traceId: message.trace.carried.traceId } : {}),
    });
  }

  /** The decision's wait, bounded by what SQS allows: 12 hours of invisibility from the first receive. */
  private secondsUntilDue(message: DecodedMessage, decision: RetryDecision | HopDecision): number {
    const now = this.context.options.now();
    const waitSeconds =
      decision.action === 'hop' && decision.state.notBefore !== undefined ? Math.ceil((decision.state.notBefore - now) / 1000) : decision.delaySeconds;
    const elapsedSeconds = Math.ceil((now - message.state.firstReceivedAt) / 1000);
    return Math.max(0, Math.min(waitSeconds, MAX_VISIBILITY_SECONDS - elapsedSeconds - 1));
  }

  private async deleteOriginal(message: DecodedMessage, after: 'success' | 'requeued' | 'dead-lettered'): Promise<boolean> {
    const { options, batch, unusedReceives } = this.context;
    const deleted = await batch.delete(options.queueUrl, message.receiptHandle);
    if (deleted.ok) {
      unusedReceives.forget(message.messageId);
      return true;
    }
    // The message will reappear: after a copy or a dead letter, it now exists twice.
    if (after !== 'success') options.metrics.duplicateRisk();
    options.logger.warn(
      { messageId: message.messageId, after, err: batchFailure('DeleteMessageBatch', options.queueUrl, message, deleted) },
      after === 'success' ? 'delete failed; the message will be delivered again' : 'delete failed after the copy was sent; a duplicate will follow',
    );
    return false;
  }
}

/** The trace context for a copy or dead letter's `AWSTraceHeader`, when the delivery has one. */
function traceHeaderOf(message: DecodedMessage): { traceHeader?: string } {
  const carried = message.trace?.carried;
  return carried ? { traceHeader: formatAwsTraceHeader(carried) } : {};
}
