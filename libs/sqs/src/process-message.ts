import type { Message } from '@aws-sdk/client-sqs';
import { classifyFailure, ErrorType, type Classification, type RetryableFailure } from '@requeue/retry';
import { callOutcomeOf, dependencyKeyOf, isFirstRateLimit } from './backpressure/call-outcome.js';
import { validateBody } from './body-schema.js';
import type { Dependencies } from './backpressure/dependencies.js';
import type { CallOutcome, DeferCause } from './backpressure/dependency.js';
import { decodeMessage, type DecodedMessage } from './decode.js';
import type { Settled } from './group-sequencer.js';
import { runWithTimeout, type HandlerStop } from './handler-runner.js';
import type { VisibilityHeartbeat } from './heartbeat.js';
import type { ResolvedWorkerOptions } from './options.js';
import type { MessageSettler } from './settle.js';
import type { Claim, IdempotencyGuard } from './idempotency/guard.js';
import type { DeliveryFacts, MessageTracer } from './tracing/message-tracer.js';
import type { UnusedReceives } from './unused-receives.js';

/** How long a message waits, invisible and unrun, while the idempotency store is unreachable. */
const STORE_DOWN_HOLD_SECONDS = 5;

export interface ProcessContext {
  options: ResolvedWorkerOptions;
  dependencies: Dependencies | undefined;
  heartbeat: VisibilityHeartbeat;
  settler: MessageSettler;
  unusedReceives: UnusedReceives;
  /** Aborts every handler when shutdown outlasts the drain timeout. */
  handlerStop: HandlerStop;
  queueName: string;
  /** Undefined when tracing is off. */
  tracer: MessageTracer | undefined;
  /** Undefined unless the consumer is idempotent. */
  idempotency: IdempotencyGuard | undefined;
}

/**
 * One message's path: decode -> admit (its dependency's backpressure) -> run the handler
 * -> classify -> decide -> settle. Answers whether the message left the queue, which is
 * what a FIFO group needs to know before the next of its messages may run.
 */
export class MessageProcessor {
  constructor(private readonly context: ProcessContext) {}

  async process(raw: Message, receivedAt: number, handOffSlot: () => void): Promise<Settled> {
    const { options, settler, heartbeat, unusedReceives } = this.context;
    const { tracer } = this.context;
    const decoded = decodeMessage(raw, receivedAt, { unusedReceives: unusedReceives.of(raw.MessageId ?? ''), parseOverride: options.retryPolicy.parseOverride, traced: tracer !== undefined, signer: options.retryStateSigner });
    const message = decoded.message;
    if (tracer) message.trace = tracer.start(deliveryFacts(message));
    try {
      if (!decoded.ok) return await settler.deadLetter(message, decoded.reason, decoded.errorType, decoded.error);
      if (message.overrideProblem) {
        options.logger.warn({ messageId: message.messageId, problem: message.overrideProblem }, 'ignoring invalid x-retry-policy; the configured policy applies');
      }
      const early = options.retryPolicy.deferUntilNotBefore(message.state, receivedAt, options.random);
      if (early) return await settler.waitOut(message, early);
      return await this.handle(message, handOffSlot);
    } catch (unexpected) {
      // Nothing a message does may end the worker. The message is left as it is and
      // reappears after its visibility timeout.
      const extending = heartbeat.untrack(message.receiptHandle);
      if (extending) await extending;
      options.logger.error({ messageId: message.messageId, err: unexpected }, 'unexpected error while processing; the message will reappear');
      return 'stays';
    } finally {
      message.trace?.end();
    }
  }

  private async handle(message: DecodedMessage, handOffSlot: () => void): Promise<Settled> {
    const { options, settler, heartbeat } = this.context;
    // Validated before the dependency's gate: a body that can never succeed is
    // dead-lettered on this delivery, even while its dependency is paused.
    const validated = options.schema ? await validateBody(options.schema, message.handlerMessage.body) : undefined;
    if (validated && !validated.ok) {
      return validated.invalid
        ? settler.deadLetter(message, 'non-retryable', ErrorType.VALIDATION, validated.error)
        : settler.deadLetter(message, 'handler-bug', ErrorType.HANDLER_BUG, validated.error);
    }
    const input = validated ? { ...message.handlerMessage, body: validated.value } : message.handlerMessage;
    const gate = this.context.dependencies?.get(dependencyKeyOf(options.dependencyKey, input, this.context.queueName));
    const admission = gate ? await gate.admit(message.state.attempt === 1) : undefined;
    if (gate && admission && admission.kind !== 'run') {
      if (admission.kind === 'stopped') return settler.release(message);
      return this.deferUnrun(message, admission.untilMs, admission.cause, `dependency ${gate.key} is ${admission.cause}`);
    }
    const claim = this.context.idempotency ? await this.context.idempotency.claim(input) : undefined;
    if (claim && claim.kind !== 'run' && claim.kind !== 'unguarded') {
      if (gate && admission?.kind === 'run') gate.finish(admission.ticket, { kind: 'neutral' });
      return this.settleUnclaimed(message, claim);
    }
    const started = options.now();
    const run = (signal: AbortSignal) => options.handler({ ...input, signal });
    const { trace } = message;
    const outcome = await runWithTimeout(trace ? (signal) => trace.run(() => run(signal)) : run, options.handlerTimeoutMs, this.context.handlerStop);
    // The heartbeat stops, and any extension under way lands, before the delete.
    const extending = heartbeat.untrack(message.receiptHandle);
    if (extending) await extending;
    if (claim) await this.recordRun(message, claim, outcome.ok);
    handOffSlot();
    const durationMs = options.now() - started;
    const failure = outcome.ok || outcome.stopped ? undefined : classifyFailure(outcome.error, options.now(), options.retryPolicy.config.classifier);
    const call: CallOutcome = outcome.ok ? { kind: 'success' } : failure ? callOutcomeOf(failure, isFirstRateLimit(message.state)) : { kind: 'neutral' };
    // The gate hears how the call went before the message's fate is decided.
    if (gate && admission?.kind === 'run') gate.finish(admission.ticket, call);
    if (outcome.ok) {
      options.metrics.succeeded(message.state.attempt, durationMs);
      return settler.ack(message);
    }
    options.metrics.failed(durationMs);
    if (!failure) return settler.release(message);
    trace?.failed(failure.errorType, failure.message);
    if (message.state.attempt === 1) options.metrics.firstFailure(failure.errorType);
    // Systemic, and the dependency's state confirms it (paused, paced, or its breaker now
    // open): defer without using an attempt. An isolated 503 with the breaker closed is
    // the message's failure, so a message that alone keeps failing cannot retry forever.
    const confirmedUntil = gate?.confirmedUntil(call);
    if (gate && failure.retryable && confirmedUntil !== undefined) {
      return this.deferFailed(message, failure, gate.key, confirmedUntil, call.kind === 'rate-limited' ? 'rate-limited' : 'breaker-open');
    }
    return this.retryOrDeadLetter(message, failure);
  }

  /** The message's own failure: its next attempt after the policy's delay, or the DLQ. */
  private retryOrDeadLetter(message: DecodedMessage, failure: Classification): Promise<Settled> {
    const { options, settler } = this.context;
    const decision = options.retryPolicy.decideClassified(message.state, failure, options.now(), options.random, message.override);
    if (decision.action === 'dead-letter') return settler.deadLetter(message, decision.reason, decision.errorType, decision.error);
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
    return settler.retry(message, decision);
  }

  /**
   * A success completes the key's record before the delete, so a duplicate arriving after
   * it short-circuits; a failure clears it, so the retry runs. A record that cannot be
   * written is logged: after a success the message is still deleted (its effect happened),
   * and the in-progress record expires with the handler timeout.
   */
  private async recordRun(message: DecodedMessage, claim: Claim, succeeded: boolean): Promise<void> {
    const guard = this.context.idempotency!;
    const problem = succeeded ? await guard.complete(claim) : await guard.abandon(claim);
    if (problem !== undefined) {
      this.context.options.logger.warn(
        { messageId: message.messageId, err: problem },
        succeeded ? 'could not mark the idempotency key completed; duplicates will wait for its in-progress record to expire' : 'could not clear the idempotency key; the retry waits for its in-progress record to expire',
      );
    }
  }

  /** A message whose key the store would not let run: a duplicate, one running elsewhere, a reused key, or no store. */
  private settleUnclaimed(message: DecodedMessage, claim: Exclude<Claim, { kind: 'run' } | { kind: 'unguarded' }>): Promise<Settled> {
    const { options, settler } = this.context;
    const fields = { messageId: message.messageId, originalMessageId: message.state.originalMessageId };
    switch (claim.kind) {
      case 'completed':
        options.logger.info(fields, 'duplicate of a completed idempotency key: acknowledged without running the handler');
        return settler.ack(message);
      case 'in-progress':
        return this.deferUnrun(message, claim.untilMs, 'duplicate-in-progress', 'another delivery of its idempotency key is running');
      case 'payload-mismatch':
        return settler.deadLetter(message, 'non-retryable', 'IDEMPOTENCY_KEY_REUSED', claim.error);
      case 'no-key':
        return settler.deadLetter(message, 'non-retryable', 'IDEMPOTENCY_KEY_MISSING', claim.error);
      case 'store-unavailable':
        options.logger.warn({ ...fields, err: claim.error }, 'idempotency store unreachable: the message waits in the queue, unrun');
        return settler.holdBack(message, STORE_DOWN_HOLD_SECONDS);
    }
  }

  /** A systemic failure the dependency's state confirms: back to SQS until it is due, attempt unchanged. */
  private deferFailed(message: DecodedMessage, failure: RetryableFailure, key: string, untilMs: number, cause: DeferCause): Promise<Settled> {
    const { options, settler } = this.context;
    const now = options.now();
    // The dependency's pause is capped; the message's own wait honours its Retry-After in
    // full, and a wait past its deadline dead-letters it.
    const waitMs = Math.max(untilMs - now, failure.retryAfterMs ?? 0);
    const decision = options.retryPolicy.defer(message.state, failure, waitMs, now, message.override);
    if (decision.action === 'hop') {
      options.logger.info(
        { messageId: message.messageId, originalMessageId: message.state.originalMessageId, attempt: message.state.attempt, errorType: failure.errorType, delaySeconds: decision.delaySeconds, dependency: key, cause },
        'dependency rate-limiting or down; retrying without using an attempt',
      );
    }
    return settler.defer(message, decision, cause);
  }

  /** A message that never ran (its dependency open or paused, or its key running elsewhere): back to SQS, attempt unchanged. */
  private deferUnrun(message: DecodedMessage, untilMs: number, cause: DeferCause, why: string): Promise<Settled> {
    const { options, settler } = this.context;
    const { state } = message;
    const reason = { retryable: true as const, errorType: state.lastErrorType ?? ErrorType.TEMPORARY, message: state.lastError ?? `deferred: ${why}` };
    const now = options.now();
    return settler.defer(message, options.retryPolicy.defer(state, reason, untilMs - now, now, message.override), cause);
  }
}

function deliveryFacts(message: DecodedMessage): DeliveryFacts {
  return {
    messageId: message.messageId,
    originalMessageId: message.state.originalMessageId,
    attempt: message.state.attempt,
    groupId: message.groupId,
    incoming: message.incomingTrace,
  };
}
