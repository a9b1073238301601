import type { SQSClient } from '@aws-sdk/client-sqs';
import { createRetryPolicy, type RetryPolicy } from '@requeue/retry';
import { enginePolicy, outOfRange, RetryStateSigner, type EnginePolicy, type Random } from '@requeue/retry/engine';
import { resolveBackpressure, type BackpressureOptions, type ResolvedBackpressure } from './backpressure/options.js';
import { SqsWorkerConfigError } from './errors.js';
import { OPTION_LIMITS as LIMITS, type IntegerLimit, type IntegerRange } from './option-limits.js';
import { adoptWorkerLogger, type WorkerLogger } from './events/logger.js';
import type { WorkerMetrics } from './events/metrics.js';
import type { BodySchema } from './message/body-schema.js';
import type { IdempotencyOptions } from './idempotency/options.js';
import type { WorkerMessage } from './message/worker-message.js';
import { resolveBatch, type BatchOptions, type ResolvedBatch } from './batch/batch-options.js';
import { realTimers, type WorkerTimers } from './time/timers.js';
import { resolveTenants, type ResolvedTenants, type TenantOptions } from './tenants/options.js';

/**
 * Your handler: resolve for success, throw for failure; what it throws is classified (docs/retry-
 * policy.md).
 */
export type MessageHandler<Body = unknown> = (message: WorkerMessage<Body>) => Promise<void>;

/**
 * What `SqsWorker` needs: the queue, its DLQ and a handler (`handler`, or `batch` for a
 * batch handler: exactly one of them); everything else has a default (libs/sqs/README.md
 * lists each).
 */
export interface SqsWorkerOptions<Body = unknown> {
  /** The client every call goes through: its region, credentials and endpoint are used as they are. */
  sqs: SQSClient;
  /** The queue to consume; retries are sent back to it as delayed copies. */
  queueUrl: string;
  /** Where non-retryable, exhausted and expired messages go, with `x-dead-letter` attached. */
  deadLetterQueueUrl: string;
  /** Resolves for success, throws for failure. Looked up per message, never snapshotted. */
  handler?: MessageHandler<Body>;
  /**
   * Instead of `handler`: messages handled many per call, each one's failure retried or
   * dead-lettered by its own error (docs/worker.md, Batch handlers).
   */
  batch?: BatchOptions<Body>;
  /**
   * Validates every body before the handler runs; the handler gets the schema's output.
   * Any Standard Schema validator (zod, valibot, arktype). A body that fails is
   * dead-lettered `non-retryable` with errorType `VALIDATION` and the validator's issues, on
   * that delivery, without calling the handler. @default none: the body is parsed JSON, unchecked
   */
  schema?: BodySchema<Body>;
  /** @default createRetryPolicy() — the shipped preset */
  retryPolicy?: RetryPolicy;
  /**
   * Handlers running at once. A message whose handler is done gives its slot to the next
   * one while its delete (or copy) lands; see `prefetch` for what is held beyond it. @default 50
   */
  maxInFlight?: number;
  /** Long-poll wait, 0–20 s. @default 20 */
  waitTimeSeconds?: number;
  /** Messages asked for per receive, 1–10. @default 10 */
  receiveBatchSize?: number;
  /** A handler still running after this fails with a TimeoutError (TEMPORARY). @default 300000 */
  handlerTimeoutMs?: number;
  /** @default read from the queue (GetQueueAttributes) */
  visibilityTimeoutSeconds?: number;
  /** The queue's redrive `maxReceiveCount`. @default read from the queue */
  maxReceiveCount?: number;
  /**
   * FIFO queues: a group's failed first message whose retry or deferral is due within
   * this many seconds waits in the worker and runs again there, its group's later
   * messages held (their visibility extended) rather than handed back, so no receive
   * count rises. A longer wait hands the group back to SQS. 0 turns waiting in place off.
   * At most the visibility timeout: a crash during the wait returns the group within one.
   * @default the visibility timeout, at most 60
   */
  fifoRetryInPlaceSeconds?: number;
  /**
   * ECS task scale-in protection: while handlers run, the task asks its ECS agent not to be
   * stopped by a scale-in or a deployment (one call when it gets busy, one once idle for
   * `idleMs`, renewals a minute before `expiresInMinutes` lapses). The task role needs
   * `ecs:UpdateTaskProtection`, which `QueueWorkerService` grants. The first handler of a
   * busy period waits for the agent's answer at most 250 ms, and not at all while its last
   * call failed or took longer; a call that fails is logged. `false` turns it off.
   * @default on when `ECS_AGENT_URI` is set (ECS sets it); idleMs 10000; expiresInMinutes the
   * longer of the visibility timeout and `handlerTimeoutMs`, plus 5
   */
  taskProtection?: false | { agentUri?: string; idleMs?: number; expiresInMinutes?: number };
  /**
   * How long a batch of deletes or sends waits for company, and how long a receive waits
   * for a full batch of free slots once one is free. @default 10
   */
  batchWaitMs?: number;
  /** `stop()` waits this long for handlers before it aborts them and releases their messages. @default 30000 */
  drainTimeoutMs?: number;
  /**
   * Messages received ahead of the handlers, so that one is in hand when a slot frees
   * instead of a receive's round trip later. They wait covered by the heartbeat, are
   * released at once at shutdown, and are not fetched while a dependency is paused or its
   * circuit open. Receives under way may also bring what a round trip brings (the
   * handlers' start rate × the round trip, both measured) less a room kept for receives
   * that land together, so most of a region's 10-30 ms is hidden too; a message that
   * lands with the prefetch full is given back at once (visibility 0, not counted as an
   * attempt), and the room follows so that about 1% are. FIFO queues do not prefetch: a
   * group's messages wait behind their head inside the worker already.
   * @default maxInFlight; 0 on FIFO queues
   */
  prefetch?: number;
  /**
   * The most receive calls under way at once: as many as free slots allow while receives
   * bring messages, one long poll once one comes back empty. The lookahead can double
   * what is held in receives, hence twice the batches the held bound takes.
   * @default 2 × ceil((maxInFlight + 2 × prefetch) / 10), at most 50
   */
  pollers?: number;
  /** @default { initialMs: 200, maxMs: 20000 } */
  pollBackoff?: { initialMs: number; maxMs: number };
  /**
   * Adaptive backpressure: a circuit breaker and an AIMD concurrency limit per dependency,
   * and rate-limit pauses. Systemic failures then defer messages without using attempts.
   * `false` turns it all off. @default on, with the defaults in docs/retry-policy.md
   */
  backpressure?: BackpressureOptions | false;
  /**
   * Which dependency a message calls, e.g. the webhook's host: each key gets its own
   * breaker and limit. @default every message shares one key, the queue's name
   */
  dependencyKey?: (message: Omit<WorkerMessage, 'signal'>) => string | undefined;
  /** Where the engine logs; a pino logger fits as is. @default silent */
  logger?: WorkerLogger;
  /** Where the engine counts; `new EmfMetrics({ ... })` writes CloudWatch EMF. @default none */
  metrics?: WorkerMetrics;
  /** @default 60000 */
  metricsFlushIntervalMs?: number;
  /**
   * OpenTelemetry: a `process <queue>` span per delivery, with the handler running inside
   * it, and the trace context carried by every retry copy and dead letter (see
   * docs/contracts.md). Costs nothing while no SDK is registered. `false` turns off spans
   * and propagation. `tracerProvider` is an OpenTelemetry `TracerProvider`. Needs the optional
   * peer `@opentelemetry/api`: without it nothing is traced, and a message's own `traceparent`
   * travels on its copies unchanged. @default on, with the global tracer provider
   */
  tracing?: false | { tracerProvider?: { getTracer(name: string, version?: string): object } };
  /**
   * Effects once: a record per key in a store (Redis, Valkey or DynamoDB through a
   * Powertools persistence layer), so a duplicate ends as a success without running the
   * handler, and one running elsewhere waits without using an attempt. @default off
   */
  idempotency?: IdempotencyOptions<Body>;
  /**
   * Keys for the HMAC on `x-retry` (at least 32 characters each): the first signs, all
   * verify (a rolling rotation: `[old, new]`, then `[new, old]`, then `[new]`). A
   * message's identity (its `idempotencyKey`) is taken from `x-retry` only when the MAC
   * checks out for that very message, so a publisher cannot borrow another message's.
   * Give every worker of the queue the same keys.
   * @default a random key of this process: retries another process handles keep their
   * attempt count but not their idempotency key
   */
  retryStateKeys?: readonly string[];
  /**
   * Tenants take turns for the handlers: what the worker has received starts round-robin
   * across tenants, in arrival order within each, so one tenant's burst or slow handlers
   * cannot hold every slot while another's messages wait (docs/worker.md, Tenants).
   * @default off: messages start in arrival order
   */
  tenants?: TenantOptions;
  /** The clock, for tests and simulations. @default Date.now */
  now?: () => number;
  /**
   * Every timer the engine sets (waits, batching, heartbeats, timeouts), for simulations in
   * virtual time, with `now` on the same clock. @default Node's timers
   */
  timers?: WorkerTimers;
  /** The jitter's random source, for tests (`seededRandom`). @default Math.random */
  random?: Random;
}

type Optional =
  | 'handler'
  | 'visibilityTimeoutSeconds'
  | 'maxReceiveCount'
  | 'fifoRetryInPlaceSeconds'
  | 'dependencyKey'
  | 'schema'
  | 'tracing'
  | 'idempotency'
  | 'taskProtection';

export type ResolvedWorkerOptions = Required<Omit<SqsWorkerOptions, Optional | 'batch' | 'backpressure' | 'retryStateKeys' | 'retryPolicy' | 'tenants'>> &
  Pick<SqsWorkerOptions, Optional | 'retryStateKeys'> & {
    /** Set when the consumer has a batch handler, else `handler` is. */
    batch: ResolvedBatch | undefined;
    backpressure: ResolvedBackpressure | false;
    retryStateSigner: RetryStateSigner;
    retryPolicy: EnginePolicy;
    tenants: ResolvedTenants | undefined;
  };

function integerIn(option: string, value: number | undefined, limit: IntegerLimit): number;
function integerIn(option: string, value: number | undefined, range: IntegerRange, fallback: number): number;
function integerIn(option: string, value: number | undefined, limit: IntegerRange & { default?: number }, fallback = limit.default): number {
  const chosen = value ?? fallback;
  const problem = outOfRange(chosen, limit);
  if (problem) throw new SqsWorkerConfigError(option, problem);
  // The overloads give a fallback wherever the limit has no default.
  return chosen as number;
}

function retryStateSigner(keys: readonly string[] | undefined): RetryStateSigner {
  if (keys === undefined) return RetryStateSigner.ephemeral();
  try {
    return new RetryStateSigner(keys);
  } catch (cause) {
    throw new SqsWorkerConfigError('retryStateKeys', (cause as Error & { problem: string }).problem, { cause });
  }
}

/**
 * With tenants, a paused dependency's message goes back to SQS at once rather than wait in
 * a handler's slot: the slot is another tenant's to take, whose dependency is fine.
 */
function withTenants(backpressure: ResolvedBackpressure, tenants: boolean): ResolvedBackpressure {
  return tenants ? { ...backpressure, pauseHoldMs: 0 } : backpressure;
}

/** Validates every option at construction, naming the one that is wrong. */
export function resolveWorkerOptions(options: SqsWorkerOptions, defaults: { logger: WorkerLogger; metrics: WorkerMetrics }): ResolvedWorkerOptions {
  for (const name of ['queueUrl', 'deadLetterQueueUrl'] as const) {
    if (typeof options[name] !== 'string' || !/^https?:\/\//.test(options[name])) {
      throw new SqsWorkerConfigError(name, `must be a queue URL (http:// or https://), got ${JSON.stringify(options[name])}`);
    }
  }
  checkHandlerChoice(options);
  // Stores the environment built report their outages where this worker logs, once it has a logger.
  if (options.logger) adoptWorkerLogger(options.logger, options.idempotency, options.backpressure ? options.backpressure.fleet : undefined);
  if (options.tracing !== undefined && options.tracing !== false && (typeof options.tracing !== 'object' || options.tracing === null)) {
    throw new SqsWorkerConfigError('tracing', 'must be false, or an object with an optional tracerProvider');
  }
  if (options.idempotency !== undefined && typeof options.idempotency?.store?.saveInProgress !== 'function') {
    throw new SqsWorkerConfigError(
      'idempotency',
      'needs a store: a Powertools persistence layer (CachePersistenceLayer for Redis or Valkey, DynamoDBPersistenceLayer)',
    );
  }
  if (options.dependencyKey !== undefined && typeof options.dependencyKey !== 'function') {
    throw new SqsWorkerConfigError('dependencyKey', 'must be a function from the message to a key, or left out');
  }
  if (options.idempotency?.storeTimeoutMs !== undefined) integerIn('idempotency.storeTimeoutMs', options.idempotency.storeTimeoutMs, LIMITS.storeTimeoutMs);
  const maxInFlight = integerIn('maxInFlight', options.maxInFlight, LIMITS.maxInFlight);
  const fifo = options.queueUrl.endsWith('.fifo');
  const prefetch = integerIn('prefetch', options.prefetch, LIMITS.prefetch, fifo ? 0 : maxInFlight);
  if (fifo && prefetch > 0)
    throw new SqsWorkerConfigError('prefetch', "must be 0 on a FIFO queue: a group's later messages must never be taken ahead of a failed first one");
  const backoff = options.pollBackoff ?? { initialMs: LIMITS.pollBackoffInitialMs.default, maxMs: LIMITS.pollBackoffMaxMs.default };
  return {
    ...options,
    retryPolicy: enginePolicy(options.retryPolicy ?? createRetryPolicy()),
    maxInFlight,
    // SQS long polling accepts 0 to 20 seconds (ReceiveMessage WaitTimeSeconds).
    waitTimeSeconds: integerIn('waitTimeSeconds', options.waitTimeSeconds, LIMITS.waitTimeSeconds),
    // SQS returns at most 10 messages per ReceiveMessage.
    receiveBatchSize: integerIn('receiveBatchSize', options.receiveBatchSize, LIMITS.receiveBatchSize),
    // A handler may run at most as long as a message can stay invisible: 12 hours.
    handlerTimeoutMs: integerIn('handlerTimeoutMs', options.handlerTimeoutMs, LIMITS.handlerTimeoutMs),
    visibilityTimeoutSeconds:
      options.visibilityTimeoutSeconds === undefined
        ? undefined
        : integerIn('visibilityTimeoutSeconds', options.visibilityTimeoutSeconds, LIMITS.visibilityTimeoutSeconds),
    maxReceiveCount: options.maxReceiveCount === undefined ? undefined : integerIn('maxReceiveCount', options.maxReceiveCount, LIMITS.maxReceiveCount),
    fifoRetryInPlaceSeconds:
      options.fifoRetryInPlaceSeconds === undefined
        ? undefined
        : integerIn('fifoRetryInPlaceSeconds', options.fifoRetryInPlaceSeconds, LIMITS.fifoRetryInPlaceSeconds),
    batchWaitMs: integerIn('batchWaitMs', options.batchWaitMs, LIMITS.batchWaitMs),
    drainTimeoutMs: integerIn('drainTimeoutMs', options.drainTimeoutMs, LIMITS.drainTimeoutMs),
    prefetch,
    pollers: integerIn('pollers', options.pollers, LIMITS.pollers, Math.min(50, 2 * Math.ceil((maxInFlight + 2 * prefetch) / 10))),
    pollBackoff: {
      initialMs: integerIn('pollBackoff.initialMs', backoff.initialMs, LIMITS.pollBackoffInitialMs),
      maxMs: integerIn('pollBackoff.maxMs', backoff.maxMs, LIMITS.pollBackoffMaxMs),
    },
    backpressure: options.backpressure === false ? false : withTenants(resolveBackpressure(options.backpressure), options.tenants !== undefined),
    logger: options.logger ?? defaults.logger,
    metrics: options.metrics ?? defaults.metrics,
    metricsFlushIntervalMs: integerIn('metricsFlushIntervalMs', options.metricsFlushIntervalMs, LIMITS.metricsFlushIntervalMs),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    timers: options.timers ?? realTimers,
    retryStateSigner: retryStateSigner(options.retryStateKeys),
    tenants: resolveTenants(options.tenants, maxInFlight),
    batch: options.batch === undefined ? undefined : resolveBatch(options.batch, maxInFlight),
  };
}

function checkHandlerChoice(options: SqsWorkerOptions): void {
  if (options.handler !== undefined && options.batch !== undefined)
    throw new SqsWorkerConfigError('batch', 'cannot be set with handler: give one handler per message (handler) or per batch (batch.handler)');
  if (options.batch !== undefined) return;
  if (typeof options.handler !== 'function') throw new SqsWorkerConfigError('handler', 'must be a function (or give batch.handler for a batch handler)');
}
