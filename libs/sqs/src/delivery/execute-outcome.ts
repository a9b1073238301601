import type { SqsBatchClient } from '../batch-client.js';
import type { EntryOutcome } from '../batcher.js';
import { deadLetterAttributes } from '../copies.js';
import type { DecodedMessage } from '../decode.js';
import { batchFailure } from '../errors.js';
import type { Settled } from '../group-sequencer.js';
import type { VisibilityHeartbeat } from '../heartbeat.js';
import type { ResolvedWorkerOptions } from '../options.js';
import type { ScheduledRetries } from '../scheduled-retries.js';
import { formatAwsTraceHeader } from '../tracing/trace-header.js';
import type { UnusedReceives } from '../unused-receives.js';
import type { DeadLetterOutcome, HideOutcome, Outcome, Wait } from './outcome.js';

export interface ExecuteContext {
  options: ResolvedWorkerOptions;
  batch: SqsBatchClient;
  heartbeat: VisibilityHeartbeat;
  unusedReceives: UnusedReceives;
  scheduled: ScheduledRetries;
}

/** A message as received, before it was decoded: all a give-back needs. */
export type Received = Pick<DecodedMessage, 'messageId' | 'receiptHandle'> & Partial<Pick<DecodedMessage, 'trace'>>;

/**
 * Performs outcomes: the only place with SQS side effects on a received message, the
 * only place its heartbeat stops, and where its running slot is handed on. It decides
 * nothing (`decideDelivery` did). A write is made only once the one before it is safe:
 * a copy before the delete of its original, a dead letter before the delete.
 */
export class OutcomeExecutor {
  constructor(private readonly context: ExecuteContext) {}

  /** `handOff` frees the message's running slot once its heartbeat has stopped, so the next message can start while this one settles. */
  execute(message: Received, outcome: { kind: 'release' }): Promise<Settled>;
  execute(message: DecodedMessage, outcome: Outcome, handOff?: () => void): Promise<Settled>;
  async execute(message: DecodedMessage | Received, outcome: Outcome, handOff?: () => void): Promise<Settled> {
    // The heartbeat stops, and any extension under way lands, before the call that settles.
    const extending = this.context.heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    handOff?.();
    if (outcome.kind === 'release') return this.release(message);
    const decoded = message as DecodedMessage;
    if ((outcome.kind === 'copy' || outcome.kind === 'hide') && outcome.wait.kind === 'deferred' && outcome.wait.cause !== 'not-before') {
      this.context.options.metrics.deferred(outcome.wait.cause);
    }
    return this.perform(decoded, outcome);
  }

  private perform(message: DecodedMessage, outcome: Exclude<Outcome, { kind: 'release' }>): Promise<Settled> {
    switch (outcome.kind) {
      case 'ack':
        return this.ack(message);
      case 'copy':
        return this.sendCopy(message, outcome);
      case 'hide':
        return this.hide(message, outcome);
      case 'dead-letter':
        return this.deadLetter(message, outcome);
      case 'hold-back':
        return this.hideUnrun(message, outcome.seconds).then(() => 'stays');
      case 'leave':
        return Promise.resolve('stays');
    }
  }

  private async ack(message: DecodedMessage): Promise<Settled> {
    if (!(await this.deleteOriginal(message, 'success'))) return 'stays';
    message.trace?.settled({ kind: 'deleted' });
    return 'gone';
  }

  /** To the DLQ with the reason in `x-dead-letter`; the original is deleted only once it is there. */
  private async deadLetter(message: DecodedMessage, { reason, errorType, error }: DeadLetterOutcome): Promise<Settled> {
    const { options, batch } = this.context;
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
  private async release(message: Received): Promise<Settled> {
    const released = await this.hideUnrun(message, 0);
    if (released.ok) message.trace?.settled({ kind: 'released' });
    else {
      const { options } = this.context;
      options.logger.warn({ messageId: message.messageId, err: batchFailure('ChangeMessageVisibilityBatch', options.queueUrl, message, released) }, 'could not release the message; it reappears after its visibility timeout');
    }
    return 'stays';
  }

  /** A message that did not run, visible again after `seconds`; its receive is remembered as no attempt. */
  private async hideUnrun(message: Received, seconds: number): Promise<EntryOutcome> {
    const { options, batch, unusedReceives } = this.context;
    const hidden = await batch.changeVisibility(options.queueUrl, message.receiptHandle, seconds);
    if (hidden.ok) unusedReceives.add(message.messageId);
    return hidden;
  }

  /** A copy with `DelaySeconds` and the new `x-retry`, then the original's delete; a failed send falls back to what the decision named. */
  private async sendCopy(message: DecodedMessage, outcome: Extract<Outcome, { kind: 'copy' }>): Promise<Settled> {
    const { options, batch } = this.context;
    const { delaySeconds } = outcome.wait.decision;
    const sent = await batch.send(options.queueUrl, { body: message.sqsBody, attributes: outcome.attributes, delaySeconds, ...traceHeaderOf(message) });
    if (sent.ok) {
      this.scheduled(message, outcome.wait, delaySeconds, 'copy');
      return (await this.deleteOriginal(message, 'requeued')) ? 'gone' : 'stays';
    }
    options.logger.warn({ messageId: message.messageId, err: batchFailure('SendMessageBatch', options.queueUrl, message, sent) }, 'could not send the retry copy; delaying the original instead');
    return this.perform(message, outcome.ifSendFails);
  }

  /** The visibility transport: the original hidden until its retry or deferral is due. */
  private async hide(message: DecodedMessage, { wait, seconds }: HideOutcome): Promise<Settled> {
    const { options, batch, unusedReceives } = this.context;
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
