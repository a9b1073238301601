import type { Arrival } from '../message/arrival.js';
import { classifyFailure } from '@requeue/retry';
import { callOutcomeOf, dependencyKeyOf, isFirstRateLimit } from '../backpressure/call-outcome.js';
import { validateBody, type BodySchema } from '../message/body-schema.js';
import type { Dependencies } from '../backpressure/dependencies.js';
import type { Admission, CallOutcome } from '../backpressure/admission.js';
import type { Dependency as DependencyGate } from '../backpressure/dependency.js';
import type { BatchGatherer } from '../batch/batch-gatherer.js';
import type { WorkerMessage } from '../message/worker-message.js';
import { decodeMessage, type DecodedMessage } from '../message/decode.js';
import { decideDelivery, type DeliveryFacts } from './decide-delivery.js';
import type { OutcomeExecutor } from './execute-outcome.js';
import type { InPlaceOutcome, Outcome } from './outcome.js';
import type { EngineEvents } from '../events/engine-events.js';
import type { EventStream } from '../events/event-stream.js';
import { unclaimedVerdict, type FinalVerdict, type Verdict } from './verdict.js';
import type { Settled } from './group-sequencer.js';
import { runWithTimeout, type HandlerStop } from './handler-runner.js';
import { SameDelayTimers } from '../time/same-delay-timers.js';
import type { ResolvedWorkerOptions } from '../options.js';
import type { QueueFacts } from '../sqs-io/queue-facts.js';
import type { Claim, IdempotencyGuard } from '../idempotency/guard.js';
import type { DeliveryFacts as TraceFacts, MessageTracer } from '../tracing/message-tracer.js';
import type { UnusedReceives } from './unused-receives.js';
import type { UnfinishedSettlements } from './unfinished.js';

const RECEIVED = { kind: 'received' } as const;

type Clearing = Cleared | FinalVerdict | Promise<Cleared | FinalVerdict>;

/** A message cleared to run: its input (the schema's output), its dependency's admission, its idempotency claim. */
interface Cleared {
  input: Omit<WorkerMessage, 'signal'>;
  gate: DependencyGate | undefined;
  admission: Admission | undefined;
  claim: Claim | undefined;
}

export interface ProcessContext {
  options: ResolvedWorkerOptions;
  dependencies: Dependencies | undefined;
  executor: OutcomeExecutor;
  events: EventStream<EngineEvents>;
  facts: QueueFacts;
  unusedReceives: UnusedReceives;
  unfinished: UnfinishedSettlements;
  /** Aborts every handler when shutdown outlasts the drain timeout. */
  handlerStop: HandlerStop;
  queueName: string;
  /** Undefined when tracing is off. */
  tracer: MessageTracer | undefined;
  /** Undefined unless the consumer is idempotent. */
  idempotency: IdempotencyGuard | undefined;
  /** Undefined unless the consumer has a batch handler. */
  gatherer: BatchGatherer | undefined;
}

/**
 * One message's path: decode, then gather what is known (its body's validity, its
 * dependency's gate, its idempotency claim, the handler's result) until a fact ends it;
 * `decideDelivery` turns that verdict into an outcome and `OutcomeExecutor` performs it.
 * Answers whether the message left the queue, which is what a FIFO group needs to know
 * before the next of its messages may run.
 */
export class MessageProcessor {
  /** Every handler's timeout, on one timer. */
  private readonly timeouts: SameDelayTimers;

  constructor(private readonly context: ProcessContext) {
    const { handlerTimeoutMs, timers, now } = context.options;
    this.timeouts = new SameDelayTimers(handlerTimeoutMs, timers, now);
  }

  /** The arrival's slot, if any, is handed on once the handler is done, and parked while the message waits in the worker. */
  async process(arrival: Arrival, receivedAt: number): Promise<Settled> {
    const { options, executor, unusedReceives, tracer } = this.context;
    const decoded = decodeMessage(arrival.message, receivedAt, {
      arrival,
      unusedReceives: unusedReceives.of(arrival.message.MessageId ?? ''),
      parseOverride: options.retryPolicy.parseOverride,
      traced: tracer !== undefined,
      signer: options.retryStateSigner,
    });
    const message = decoded.message;
    if (tracer) message.trace = tracer.start(traceFacts(message));
    try {
      if (!decoded.ok) return await this.settle(message, { kind: 'undecodable', reason: decoded.reason, errorType: decoded.errorType, error: decoded.error });
      if (message.overrideProblem) {
        options.logger.warn(
          { messageId: message.messageId, problem: message.overrideProblem },
          'ignoring invalid x-retry-policy; the configured policy applies',
        );
      }
      const rest = this.context.unfinished.take(message.messageId);
      if (rest) return await executor.finish(message, rest);
      const start = decideDelivery(this.decisionFacts(message, RECEIVED, receivedAt));
      if (start.kind !== 'run') return await executor.execute(message, start);
      return await this.settle(message, await this.runToVerdict(message));
    } catch (unexpected) {
      // Nothing a message does may end the worker. The message is left as it is and
      // reappears after its visibility timeout.
      await executor.execute(message, { kind: 'leave' });
      options.logger.error({ messageId: message.messageId, err: unexpected }, 'unexpected error while processing; the message will reappear');
      return 'stays';
    } finally {
      message.trace?.end();
    }
  }

  /**
   * Decides and acts; a message whose wait is spent in place runs again here until it
   * settles. A FIFO head keeps its running slot (its group is held behind it anyway); on a
   * standard queue the slot is parked for the others while the message waits.
   */
  private settle(message: DecodedMessage, verdict: FinalVerdict): Promise<Settled> {
    const outcome = this.decideFinal(message, verdict);
    // Most verdicts settle at once: no frame of this method's is kept across an await for them.
    return outcome.kind === 'in-place' ? this.settleInPlace(message, outcome) : this.context.executor.execute(message, outcome);
  }

  private async settleInPlace(message: DecodedMessage, inPlace: InPlaceOutcome): Promise<Settled> {
    let outcome: Outcome | InPlaceOutcome = inPlace;
    while (outcome.kind === 'in-place') {
      const parking = message.arrival?.slot;
      const parked = !this.context.facts.fifo && parking !== undefined && parking.park();
      if (!(await this.context.executor.waitInPlace(message, outcome))) {
        outcome = outcome.ifStopped;
        break;
      }
      if (parked) await parking!.unpark();
      outcome = this.decideFinal(message, await this.runToVerdict(message));
    }
    return this.context.executor.execute(message, outcome);
  }

  private decideFinal(message: DecodedMessage, verdict: FinalVerdict): Outcome | InPlaceOutcome {
    this.logVerdict(message, verdict);
    return decideDelivery(this.decisionFacts(message, verdict, this.context.options.now()));
  }

  private decisionFacts<V extends Verdict>(message: DecodedMessage, verdict: V, now: number): DeliveryFacts<V> {
    const { options, facts } = this.context;
    return { message, verdict, policy: options.retryPolicy, queue: facts, signer: options.retryStateSigner, now, random: options.random };
  }

  /** Validate, pass the dependency's gate, claim the idempotency key, run: the first fact that stops the message is its verdict. */
  private runToVerdict(message: DecodedMessage): Promise<FinalVerdict> {
    const { gatherer } = this.context;
    gatherer?.approach();
    let clearing: Clearing;
    try {
      clearing = this.clearToRun(message);
    } catch (unexpected) {
      gatherer?.turnedAway();
      return Promise.reject(unexpected);
    }
    if (!(clearing instanceof Promise)) return this.runCleared(message, clearing);
    return clearing.then(
      (cleared) => this.runCleared(message, cleared),
      (unexpected: unknown) => {
        gatherer?.turnedAway();
        throw unexpected;
      },
    );
  }

  private runCleared(message: DecodedMessage, cleared: Cleared | FinalVerdict): Promise<FinalVerdict> {
    if ('input' in cleared) return this.runHandler(message, cleared);
    this.context.gatherer?.turnedAway();
    return Promise.resolve(cleared);
  }

  /**
   * The facts before the handler: a verdict when one of them stops the message. Answered
   * without a promise when nothing has to wait (no schema, an open gate, no idempotency):
   * this runs once per message.
   */
  private clearToRun(message: DecodedMessage): Clearing {
    const { schema } = this.context.options;
    return schema ? this.validateThenClear(message, schema) : this.passGate(message, message.handlerMessage);
  }

  /** Validated before the dependency's gate: a body that can never succeed is dead-lettered on this delivery, even while its dependency is paused. */
  private async validateThenClear(message: DecodedMessage, schema: BodySchema): Promise<Cleared | FinalVerdict> {
    const validated = await validateBody(schema, message.handlerMessage.body);
    if (!validated.ok) return { kind: 'invalid-body', invalid: validated.invalid, error: validated.error };
    return this.passGate(message, { ...message.handlerMessage, body: validated.value });
  }

  private passGate(message: DecodedMessage, input: Cleared['input']): Clearing {
    const { options, queueName, dependencies } = this.context;
    const gate = dependencies?.get(dependencyKeyOf(options.dependencyKey, input, queueName));
    const admission = gate?.admit(message.state.attempt === 1);
    return admission instanceof Promise ? admission.then((admitted) => this.claimKey(input, gate, admitted)) : this.claimKey(input, gate, admission);
  }

  private claimKey(input: Cleared['input'], gate: DependencyGate | undefined, admission: Admission | undefined): Clearing {
    if (gate && admission && admission.kind !== 'run') {
      return admission.kind === 'stopped'
        ? { kind: 'gate-stopped' }
        : { kind: 'gate-closed', untilMs: admission.untilMs, cause: admission.cause, dependency: gate.key };
    }
    const { idempotency } = this.context;
    if (!idempotency) return { input, gate, admission, claim: undefined };
    return idempotency.claim(input).then((claim): Cleared | FinalVerdict => {
      if (claim.kind === 'run' || claim.kind === 'unguarded') return { input, gate, admission, claim };
      if (gate && admission?.kind === 'run') gate.finish(admission.ticket, { kind: 'neutral' });
      return unclaimedVerdict(claim);
    });
  }

  private async runHandler(message: DecodedMessage, { input, gate, admission, claim }: Cleared): Promise<FinalVerdict> {
    const { options, gatherer } = this.context;
    const started = options.now();
    const { trace } = message;
    const run = gatherer
      ? (signal: AbortSignal) => gatherer.handle({ ...input, signal }, trace)
      : (signal: AbortSignal) => options.handler!({ ...input, signal });
    const outcome = await runWithTimeout(trace && !gatherer ? (signal) => trace.run(() => run(signal)) : run, this.timeouts, this.context.handlerStop);
    if (claim) await this.recordRun(message, claim, outcome.ok);
    const durationMs = options.now() - started;
    const failure = outcome.ok || outcome.stopped ? undefined : classifyFailure(outcome.error, options.now(), options.retryPolicy.config.classifier);
    const call: CallOutcome = outcome.ok ? { kind: 'success' } : failure ? callOutcomeOf(failure, isFirstRateLimit(message.state)) : { kind: 'neutral' };
    // The gate hears how the call went before the message's fate is decided.
    if (gate && admission?.kind === 'run') gate.finish(admission.ticket, call);
    this.context.events.emit('handled', {
      messageId: message.messageId,
      originalMessageId: message.state.originalMessageId,
      attempt: message.state.attempt,
      durationMs,
      result: outcome.ok ? 'succeeded' : failure ? 'failed' : 'stopped',
      // Set, not spread: this runs once per message.
      failure: failure ? { errorType: failure.errorType, error: failure.message, retryable: failure.retryable } : undefined,
      trace,
    });
    if (outcome.ok) return { kind: 'succeeded' };
    if (!failure) return { kind: 'stopped' };
    // Systemic, and the dependency's state confirms it (paused, paced, or its breaker now
    // open): defer without using an attempt. An isolated 503 with the breaker closed is
    // the message's failure, and so is a failed half-open probe: else a message that alone
    // keeps failing would be the probe again and again, reopening the breaker each time,
    // never spending an attempt, while every other message waits behind it.
    const probed = admission?.kind === 'run' && admission.ticket.breaker?.probe === true && call.kind !== 'rate-limited';
    const confirmedUntil = probed ? undefined : gate?.confirmedUntil(call);
    if (gate && confirmedUntil !== undefined) {
      return {
        kind: 'failed',
        failure,
        confirmed: { untilMs: confirmedUntil, cause: call.kind === 'rate-limited' ? 'rate-limited' : 'breaker-open', dependency: gate.key },
      };
    }
    return { kind: 'failed', failure };
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
        succeeded
          ? 'could not mark the idempotency key completed; duplicates will wait for its in-progress record to expire'
          : 'could not clear the idempotency key; the retry waits for its in-progress record to expire',
      );
    }
  }

  /** What the idempotency store said, when it kept the handler from running: the outcome alone would not tell an operator why. */
  private logVerdict(message: DecodedMessage, verdict: FinalVerdict): void {
    if (verdict.kind !== 'duplicate' && verdict.kind !== 'store-unavailable') return;
    const { logger } = this.context.options;
    const fields = { messageId: message.messageId, originalMessageId: message.state.originalMessageId };
    if (verdict.kind === 'duplicate') logger.info(fields, 'duplicate of a completed idempotency key: acknowledged without running the handler');
    if (verdict.kind === 'store-unavailable')
      logger.warn({ ...fields, err: verdict.error }, 'idempotency store unreachable: the message waits in the queue, unrun');
  }
}

function traceFacts(message: DecodedMessage): TraceFacts {
  return {
    messageId: message.messageId,
    originalMessageId: message.state.originalMessageId,
    attempt: message.state.attempt,
    groupId: message.groupId,
    incoming: message.incomingTrace,
  };
}
