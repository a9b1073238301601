import type { SqsBatchClient } from '../sqs-io/batch-client.js';
import type { EntryOutcome } from '../sqs-io/batcher.js';
import { deadLetterAttributes } from '../message/copies.js';
import type { DecodedMessage } from '../message/decode.js';
import { batchFailure } from '../errors.js';
import type { EngineEvents, SettledOutcome } from '../events/engine-events.js';
import type { RetryTransport } from '../events/worker-events.js';
import type { EventStream } from '../events/event-stream.js';
import type { Settled } from './group-sequencer.js';
import type { VisibilityHeartbeat } from './heartbeat.js';
import type { ResolvedWorkerOptions } from '../options.js';
import { formatAwsTraceHeader } from '../tracing/trace-header.js';
import type { UnusedReceives } from './unused-receives.js';
import type { Unfinished, UnfinishedSettlements } from './unfinished.js';
import { sleep } from '../time/sleep.js';
import type { DeadLetterOutcome, HideOutcome, InPlaceOutcome, Outcome, ReleaseOutcome, Wait } from './outcome.js';

/** A message acknowledged by reporting it done: nothing to call. */
const DONE: EntryOutcome = { ok: true };

/** What a message acknowledged on its first run reports: shared, since most messages end so. */
const DELETED: SettledOutcome = Object.freeze({ kind: 'deleted' });

/** The longest error text and error type a dead letter's `x-dead-letter` carries. */
const MAX_RECORD_FIELD = 512;

/**
 * How a message done with leaves the queue: `delete`d by the worker that received it, or
 * `report`ed done to the receiver (a Lambda event source mapping deletes every record its
 * function does not report as failed).
 */
export type Acknowledge = 'delete' | 'report';

export interface ExecuteContext {
  options: Pick<ResolvedWorkerOptions, 'queueUrl' | 'deadLetterQueueUrl' | 'retryStateSigner' | 'now' | 'timers'>;
  acknowledge: Acknowledge;
  /** The DLQ's size limit: what a dead letter's attributes must fit within. */
  deadLetterMaximumMessageSize: number;
  batch: SqsBatchClient;
  heartbeat: VisibilityHeartbeat;
  unusedReceives: UnusedReceives;
  /** Deletes and dead letters SQS refused: done on the message's next receive here. */
  unfinished: UnfinishedSettlements;
  events: EventStream<EngineEvents>;
  /** Aborted when no message may wait in the process any longer: ends the waits in place. */
  draining: AbortSignal;
}

/** A message as received, before it was decoded: all a give-back needs. */
export type Received = Pick<DecodedMessage, 'messageId' | 'receiptHandle'> & Partial<Pick<DecodedMessage, 'trace' | 'state' | 'handlerMessage' | 'arrival'>>;

/**
 * Performs outcomes: the only place with SQS side effects on a received message, the
 * only place its heartbeat stops, where its running slot is handed on and where a wait in
 * place is spent. It decides
 * nothing (`decideDelivery` did) and reports what it did as events (`settled`,
 * `settleFailed`). A write is made only once the one before it is safe: a copy before
 * the delete of its original, a dead letter before the delete.
 */
export class OutcomeExecutor {
  constructor(private readonly context: ExecuteContext) {}

  /** The message's running slot, if it has one, is handed on once its heartbeat has stopped, so the next message can start while this one settles. */
  execute(message: Received, outcome: ReleaseOutcome): Promise<Settled>;
  execute(message: DecodedMessage, outcome: Outcome): Promise<Settled>;
  execute(message: DecodedMessage | Received, outcome: Outcome): Promise<Settled> {
    const landing = this.letGo(message);
    if (landing) return landing.then(() => this.carryOut(message, outcome));
    return this.carryOut(message, outcome);
  }

  /** Lets a stale delivery go without a call to SQS (its message was delivered again): its heartbeat stops and its slot is handed on. */
  leave(message: Received): Promise<void> {
    return this.letGo(message) ?? Promise.resolve();
  }

  private carryOut(message: DecodedMessage | Received, outcome: Outcome): Promise<Settled> {
    if (outcome.kind === 'release') return this.release(message);
    return this.perform(message as DecodedMessage, outcome);
  }

  /** Carries out what SQS refused on an earlier receive of this message (`UnfinishedSettlements`), the handler not run again. */
  async finish(message: DecodedMessage, rest: Unfinished): Promise<Settled> {
    await this.letGo(message);
    if (rest.kind === 'dead-letter') return this.deadLetter(message, rest);
    return this.deleteOriginal(message, false);
  }

  /**
   * The heartbeat stops, and any extension under way lands, before the call that settles;
   * then the slot is handed on. Nothing to await unless an extension is under way: most
   * messages settle before their first, and this runs once per message.
   */
  private letGo(message: Received): Promise<void> | undefined {
    const extending = this.context.heartbeat.untrack(message.receiptHandle);
    if (extending) return extending.then(() => message.arrival?.slot?.handOff());
    message.arrival?.slot?.handOff();
    return undefined;
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
        return this.holdBack(message, outcome.seconds);
      case 'leave':
        return Promise.resolve('stays');
    }
  }

  private ack(message: DecodedMessage): Promise<Settled> {
    return this.deleteOriginal(message, false, DELETED);
  }

  /** To the DLQ with the reason in `x-dead-letter`; the original is deleted only once it is there. */
  private async deadLetter(message: DecodedMessage, outcome: DeadLetterOutcome): Promise<Settled> {
    const { reason, errorType, error } = outcome;
    const { options, batch } = this.context;
    const record = {
      reason,
      // Bounded, so the room a dead letter needs is known (`RESERVED_BYTES`).
      errorType: errorType.slice(0, MAX_RECORD_FIELD),
      error: error.slice(0, MAX_RECORD_FIELD),
      attempts: outcome.attempts ?? message.state.attempt,
      firstReceivedAt: message.state.firstReceivedAt,
      deadLetteredAt: options.now(),
      sourceQueue: options.queueUrl,
      originalMessageId: message.state.originalMessageId,
      ...(message.groupId === undefined ? {} : { messageGroupId: message.groupId }),
    };
    const { attributes, noRoom } = deadLetterAttributes(message, record, options.retryStateSigner, this.context.deadLetterMaximumMessageSize);
    // A FIFO DLQ needs a group and a deduplication id. A dead letter keeps its group, as
    // SQS's own redrive does, so the DLQ holds each group in order and a replay or SQS's
    // move task puts it back in order. The id makes a resend after a lost answer a no-op.
    const fifoDlq = options.deadLetterQueueUrl.endsWith('.fifo');
    const sent = await batch.send(options.deadLetterQueueUrl, {
      body: message.sqsBody,
      attributes,
      ...traceHeaderOf(message),
      ...(fifoDlq ? { groupId: message.groupId ?? message.messageId, deduplicationId: message.messageId } : tenantOf(message)),
    });
    if (!sent.ok) {
      this.context.unfinished.remember(message.messageId, { ...outcome, attempts: outcome.attempts ?? message.state.attempt });
      return this.failed(message, 'send-dead-letter', batchFailure('SendMessageBatch', options.deadLetterQueueUrl, message, sent));
    }
    const withoutRecord = noRoom ? { noRoom, deadLetterMessageId: sent.messageId } : {};
    this.settled(message, { kind: 'dead-letter', reason, errorType, error, carriesRecord: noRoom === undefined, ...withoutRecord });
    return this.deleteOriginal(message, true);
  }

  /**
   * Visible again at once (visibility 0), for this or another worker to take. Used at
   * shutdown and for a FIFO group's messages given back behind a failed head: none of
   * them ran, so the receive they used is remembered as no attempt.
   */
  private async release(message: Received): Promise<Settled> {
    const released = await this.hideUnrun(message, 0);
    if (!released.ok) return this.failed(message, 'release', batchFailure('ChangeMessageVisibilityBatch', this.context.options.queueUrl, message, released));
    this.settled(message, { kind: 'released' });
    return 'stays';
  }

  /** Hidden for `seconds`, unrun: the receive is no attempt. A failure leaves it to reappear after its visibility timeout. */
  private async holdBack(message: DecodedMessage, seconds: number): Promise<Settled> {
    if ((await this.hideUnrun(message, seconds)).ok) this.settled(message, { kind: 'held-back', seconds });
    return 'stays';
  }

  /**
   * A message that did not run, visible again after `seconds`; its receive is remembered as
   * no attempt whatever the call's answer: refused, the message comes back at its visibility
   * timeout instead, and an answer lost may have taken effect; either way this receive is in
   * the count its next receive shows, and it ran nothing.
   */
  private async hideUnrun(message: Received, seconds: number): Promise<EntryOutcome> {
    const { options, batch, unusedReceives } = this.context;
    unusedReceives.add(message.messageId);
    return batch.changeVisibility(options.queueUrl, message.receiptHandle, seconds);
  }

  /** A copy with `DelaySeconds` and the new `x-retry`, then the original's delete; a failed send falls back to what the decision named. */
  private async sendCopy(message: DecodedMessage, outcome: Extract<Outcome, { kind: 'copy' }>): Promise<Settled> {
    const { options, batch } = this.context;
    const { delaySeconds } = outcome.wait.decision;
    const sent = await batch.send(options.queueUrl, {
      body: message.sqsBody,
      attributes: outcome.attributes,
      delaySeconds,
      ...traceHeaderOf(message),
      ...tenantOf(message),
    });
    if (!sent.ok) {
      this.failed(message, 'send-copy', batchFailure('SendMessageBatch', options.queueUrl, message, sent));
      return this.perform(message, outcome.ifSendFails);
    }
    this.settled(message, waiting(outcome.wait, delaySeconds, 'copy'));
    return this.deleteOriginal(message, true);
  }

  /** The visibility transport: the original hidden until its retry or deferral is due. */
  private async hide(message: DecodedMessage, { wait, seconds }: HideOutcome): Promise<Settled> {
    const { options, batch, unusedReceives } = this.context;
    const hidden = await batch.changeVisibility(options.queueUrl, message.receiptHandle, seconds);
    if (!hidden.ok) return this.failed(message, 'hide', batchFailure('ChangeMessageVisibilityBatch', options.queueUrl, message, hidden));
    if (wait.kind === 'deferred') unusedReceives.add(message.messageId);
    this.settled(message, waiting(wait, seconds, 'visibility'));
    return 'stays';
  }

  /**
   * A wait spent in the worker (`InPlaceOutcome`: a FIFO group's head, or a message that
   * cannot carry its state), reported as its retry or deferral with the `in-place`
   * transport, while the heartbeat keeps it (and a FIFO group's later messages) hidden.
   * False when draining began first. After it, the message carries the state it waited
   * for; a retry's attempt is remembered as one no receive counted, so a later hand-back
   * still counts it.
   */
  async waitInPlace(message: DecodedMessage, { wait, seconds }: InPlaceOutcome): Promise<boolean> {
    const { draining, unusedReceives } = this.context;
    this.settled(message, waiting(wait, seconds, 'in-place'));
    await sleep(seconds * 1000, draining, this.context.options.timers);
    if (draining.aborted) return false;
    message.state = wait.decision.state;
    message.handlerMessage = { ...message.handlerMessage, attempt: message.state.attempt };
    if (wait.kind === 'retry') unusedReceives.attemptInPlace(message.messageId);
    return true;
  }

  /**
   * The original's delete; once it is gone, `settledAs` is reported when given. `afterSend`:
   * a copy or dead letter was sent, so a failed delete leaves the message twice. Not an
   * async function: this runs once per message, and an async frame kept across the
   * delete's wait was the largest allocation of a message's settling.
   */
  private deleteOriginal(message: DecodedMessage, afterSend: boolean, settledAs?: SettledOutcome): Promise<Settled> {
    const { options, batch, acknowledge } = this.context;
    if (acknowledge === 'report') return Promise.resolve(this.afterDelete(message, DONE, afterSend, settledAs));
    return batch.delete(options.queueUrl, message.receiptHandle).then((deleted) => this.afterDelete(message, deleted, afterSend, settledAs));
  }

  private afterDelete(message: DecodedMessage, deleted: EntryOutcome, afterSend: boolean, settledAs: SettledOutcome | undefined): Settled {
    if (deleted.ok) {
      this.context.unusedReceives.forget(message.messageId);
      if (settledAs) this.settled(message, settledAs);
      return 'gone';
    }
    this.context.unfinished.remember(message.messageId, DELETE);
    this.failed(message, 'delete', batchFailure('DeleteMessageBatch', this.context.options.queueUrl, message, deleted), afterSend);
    return 'stays';
  }

  private settled(message: Received, outcome: SettledOutcome): void {
    const state = message.state;
    this.context.events.emit('settled', {
      messageId: message.messageId,
      originalMessageId: state?.originalMessageId ?? message.messageId,
      ...(message.handlerMessage?.snsMessageId ? { snsMessageId: message.handlerMessage.snsMessageId } : {}),
      attempt: state?.attempt ?? 0,
      outcome,
      trace: message.trace,
    });
  }

  private failed(message: Received, step: EngineEvents['settleFailed']['step'], error: Error, duplicate = false): 'stays' {
    this.context.events.emit('settleFailed', { messageId: message.messageId, step, duplicate, error });
    return 'stays';
  }
}

function waiting(wait: Wait, delaySeconds: number, transport: RetryTransport): SettledOutcome {
  const { decision } = wait;
  return wait.kind === 'retry'
    ? { kind: 'retry', nextAttempt: decision.state.attempt, delaySeconds, errorType: decision.errorType, error: decision.error, transport }
    : { kind: 'deferred', delaySeconds, cause: wait.cause, ran: wait.ran, errorType: decision.errorType, error: decision.error, transport };
}

const DELETE: Unfinished = { kind: 'delete' };

/** The trace context for a copy or dead letter's `AWSTraceHeader`, when the delivery has one. */
function traceHeaderOf(message: DecodedMessage): { traceHeader?: string } {
  const carried = message.trace?.carried;
  return carried ? { traceHeader: formatAwsTraceHeader(carried) } : {};
}

/**
 * On a standard queue a MessageGroupId names the message's tenant (SQS fair queues): its
 * retry copy and its dead letter keep it, so they count for the same tenant. (FIFO queues
 * retry by visibility or in place, and a FIFO dead letter keeps its group.)
 */
function tenantOf(message: DecodedMessage): { groupId?: string } {
  return message.groupId === undefined ? {} : { groupId: message.groupId };
}
