import type { Dependencies } from '../backpressure/dependencies.js';
import { SqsBatchClient } from '../sqs-io/batch-client.js';
import type { EngineEvents } from '../events/engine-events.js';
import { EventStream } from '../events/event-stream.js';
import { observeWorker } from '../events/subscribers.js';
import { HandlerStop } from './handler-runner.js';
import { VisibilityHeartbeat } from './heartbeat.js';
import type { IdempotencyGuard } from '../idempotency/guard.js';
import type { ResolvedWorkerOptions } from '../options.js';
import { MessageProcessor } from './process-message.js';
import { BatchGatherer } from '../batch/batch-gatherer.js';
import { keepProtoAttribute } from '../message/proto-attribute.js';
import type { QueueFacts } from '../sqs-io/queue-facts.js';
import type { ScheduledRetries } from './scheduled-retries.js';
import { MessageTracer } from '../tracing/message-tracer.js';
import { otel } from '../tracing/otel-api.js';
import { UnusedReceives } from './unused-receives.js';
import { UnfinishedSettlements } from './unfinished.js';
import { OutcomeExecutor, type Acknowledge } from './execute-outcome.js';

/** The queue's name, the last part of its URL: what spans, metrics and idempotency keys name it by. */
export function queueNameOf(queueUrl: string): string {
  return queueUrl.split('/').pop() || queueUrl;
}

/** What lives as long as the consumer, whichever way its messages arrive: its writes, its events, its receive accounting. */
export interface DeliveryShared {
  batch: SqsBatchClient;
  events: EventStream<EngineEvents>;
  unusedReceives: UnusedReceives;
  unfinished: UnfinishedSettlements;
  queueName: string;
}

/** Made once per consumer, before any message: `scheduled` hears of every retry the consumer schedules. */
export function shareDelivery(options: ResolvedWorkerOptions, scheduled: ScheduledRetries): DeliveryShared {
  keepProtoAttribute(options.sqs);
  const events = new EventStream<EngineEvents>(options.logger);
  observeWorker(events, options, scheduled);
  return {
    batch: new SqsBatchClient(options.sqs, options.batchWaitMs, options.timers),
    events,
    unusedReceives: new UnusedReceives(),
    unfinished: new UnfinishedSettlements(),
    queueName: queueNameOf(options.queueUrl),
  };
}

/** How the two runtimes differ once a message is in hand. */
export interface DeliveryWiring {
  /** `delete` where the worker received the message; `report` where a Lambda event source mapping did, and deletes what is not reported failed. */
  acknowledge: Acknowledge;
  idempotency: IdempotencyGuard | undefined;
  /** Undefined where backpressure is off (always on Lambda: each invocation is too short to learn a dependency's state). */
  dependencies: Dependencies | undefined;
  /** Aborts every running handler: the worker's drain timeout, or an invocation's deadline. */
  stop: AbortSignal;
  /** Aborted when no message may wait in the process any longer: shutdown, or the invocation's end. */
  draining: AbortSignal;
  /** With a batch handler: whether a message not yet received may still join a batch (a free handler slot; never within a Lambda event). */
  roomForMore: () => boolean;
}

/** One consumer's pipeline: the heartbeat that keeps messages hidden, the processor that runs them, the executor that settles them. */
export interface Delivery {
  heartbeat: VisibilityHeartbeat;
  executor: OutcomeExecutor;
  processor: MessageProcessor;
}

/**
 * The pipeline, assembled here only, for `SqsWorker` (fed by its poller) and
 * `ReceivedMessages` (fed by a Lambda event's records). The stages run in
 * `MessageProcessor.process`: decode, then validate → gate → claim → run, then
 * `decideDelivery` and the `OutcomeExecutor`.
 */
export function createDelivery(options: ResolvedWorkerOptions, facts: QueueFacts, shared: DeliveryShared, wiring: DeliveryWiring): Delivery {
  const { batch, events, unusedReceives, unfinished, queueName } = shared;
  const { logger, now, timers, queueUrl } = options;
  const heartbeat = new VisibilityHeartbeat({ batch, queueUrl, visibilityTimeoutSeconds: facts.visibilityTimeoutSeconds, logger, now, timers });
  const executor = new OutcomeExecutor({
    options,
    acknowledge: wiring.acknowledge,
    deadLetterMaximumMessageSize: facts.deadLetterMaximumMessageSize,
    batch,
    heartbeat,
    unusedReceives,
    unfinished,
    events,
    draining: wiring.draining,
  });
  const tracer = options.tracing === false || !otel ? undefined : new MessageTracer(otel, queueName, queueUrl, options.tracing?.tracerProvider);
  const processor = new MessageProcessor({
    options,
    dependencies: wiring.dependencies,
    executor,
    events,
    facts,
    unusedReceives,
    unfinished,
    handlerStop: new HandlerStop(wiring.stop),
    queueName,
    tracer,
    idempotency: wiring.idempotency,
    gatherer: options.batch
      ? new BatchGatherer(options.batch, { timers, logger, tracer, roomForMore: () => !wiring.draining.aborted && wiring.roomForMore() })
      : undefined,
  });
  return { heartbeat, executor, processor };
}
