import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerConfigError, type BatchHandler, type MessageHandler } from '@requeue/sqs';
import { ReceivedMessages, type ReceivedOptions } from '@requeue/sqs/received';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from './lambda-event.js';
import { optionsFromEnv } from './env-options.js';
import { jsonLinesLogger } from './json-lines-logger.js';
import { messageOfRecord, queueUrlOfRecord } from './records.js';

/**
 * How `sqsHandler` runs: the worker's options, less what Lambda's event source mapping does
 * itself. Where `WORKER_QUEUE_URL` and `WORKER_DLQ_URL` are set (`QueueWorkerFunction` sets
 * them), the environment configures what these leave out, as it does the container
 * worker: `RETRY_POLICY`, `METRICS_NAMESPACE`, `WORKER_IDEMPOTENCY`, `WORKER_HANDLER_TIMEOUT_MS`,
 * `WORKER_RETRY_STATE_KEYS` (or `WORKER_RETRY_STATE_KEYS_SECRET`, a secret read at cold start).
 */
export interface SqsHandlerOptions<Body = unknown> extends Omit<
  ReceivedOptions<Body>,
  'handler' | 'batch' | 'sqs' | 'queueUrl' | 'deadLetterQueueUrl' | 'maxInFlight' | 'logger'
> {
  /**
   * Where the engine logs. @default JSON lines on stdout at info and above, as pino writes
   * them: the function's log group then has the `dead-lettered` lines `QueueMonitoring`'s
   * "dead letters by cause" table reads
   */
  logger?: ReceivedOptions<Body>['logger'];
  /** @default a client from the environment (region, credentials, `AWS_ENDPOINT_URL`) */
  sqs?: SQSClient;
  /**
   * Where retry copies go, for every record. @default each record's own queue: the URL of
   * its `eventSourceARN` (`WORKER_QUEUE_URL` when that names the same queue), so one
   * function on two queues sends each queue's retries back to it
   */
  queueUrl?: string;
  /** Where dead letters go. @default WORKER_DLQ_URL */
  deadLetterQueueUrl?: string;
  /**
   * At most this many records of a batch run at once (FIFO: this many groups). Lambda's
   * own default batch size, so a default batch runs whole at once; the engine's 50 is for a
   * long-running worker's prefetch, which a function does not have.
   * @default 10
   */
  concurrency?: number;
  /**
   * Kept from the invocation's remaining time to settle what the handlers leave: each
   * handler is stopped this long before the invocation's end, and its message stays in the
   * queue. @default a tenth of the remaining time, at least 500 ms and at most 5 s
   */
  settleReserveMs?: number;
}

/** The Lambda handler `sqsHandler` returns: an SQS event in, the records that stay in the queue out. */
export type SqsLambdaHandler = (event: SqsEvent, context: LambdaContext) => Promise<SqsBatchResponse>;

function settleReserve(remainingMs: number, given: number | undefined): number {
  return given ?? Math.min(5_000, Math.max(500, Math.round(remainingMs / 10)));
}

/** `sqsBatchHandler`'s options: `sqsHandler`'s, and the batch's size. */
export interface SqsBatchHandlerOptions<Body = unknown> extends SqsHandlerOptions<Body> {
  /** Messages per call of the batch handler at most, up to `concurrency`. @default concurrency (10) */
  batchSize?: number;
}

/** One handler per message, or one per batch. */
type Handling<Body> = { handler: MessageHandler<Body> } | { batch: { handler: BatchHandler<Body>; size: number } };

async function receivedMessages<Body>(handling: Handling<Body>, options: SqsHandlerOptions<Body>, queueUrl: string): Promise<ReceivedMessages> {
  const { sqs, queueUrl: _queueUrl, deadLetterQueueUrl, concurrency, settleReserveMs: _reserve, ...rest } = options;
  const dlq = deadLetterQueueUrl ?? process.env.WORKER_DLQ_URL;
  if (!dlq) throw new SqsWorkerConfigError('deadLetterQueueUrl', 'is not set: pass it, or set WORKER_DLQ_URL (QueueWorkerFunction sets it)');
  return ReceivedMessages.create<Body>({
    logger: jsonLinesLogger(),
    ...((await optionsFromEnv(process.env)) as Partial<ReceivedOptions<Body>>),
    ...rest,
    ...handling,
    sqs: sqs ?? new SQSClient({}),
    queueUrl,
    deadLetterQueueUrl: dlq,
    maxInFlight: concurrency ?? 10,
  });
}

/**
 * A Lambda handler for SQS events that runs each record through requeue's path, as the
 * worker does: decode, schema, classification, the retry policy, idempotency, tracing.
 * Settles each the same way and reports the rest to Lambda:
 * - success: reported done (Lambda deletes it);
 * - retryable: a copy delayed by the policy (`x-retry` carried), then reported done; where
 *   no copy can be sent (a FIFO queue, a failed send), the message is hidden for the delay
 *   and reported as a batch item failure;
 * - non-retryable, exhausted, past its deadline: to the DLQ with `x-dead-letter`, then done.
 *
 * On a FIFO queue each group stops at its first message that stays, and its later messages
 * are reported too, unrun. Handlers stop before the invocation's time runs out; their
 * messages stay. The event source mapping must have `ReportBatchItemFailures` on.
 */
export function sqsHandler<Body = unknown>(handler: MessageHandler<Body>, options: SqsHandlerOptions<Body> = {}): SqsLambdaHandler {
  return lambdaHandler({ handler }, options);
}

/**
 * `sqsHandler` with a batch handler: the records still in play (after schema and
 * idempotency) go to `handler` together, up to `batchSize` per call, and each is settled by
 * its own entry of the result as `SqsWorker`'s batch handler is (docs/worker.md, Batch
 * handlers): nothing means all succeeded, a throw means all failed with that error.
 */
export function sqsBatchHandler<Body = unknown>(handler: BatchHandler<Body>, options: SqsBatchHandlerOptions<Body> = {}): SqsLambdaHandler {
  const { batchSize, ...rest } = options;
  return lambdaHandler({ batch: { handler, size: batchSize ?? rest.concurrency ?? 10 } }, rest);
}

function lambdaHandler<Body>(handling: Handling<Body>, options: SqsHandlerOptions<Body>): SqsLambdaHandler {
  // One path per queue (its facts read once), built on its first record and kept for the
  // container's life; a failed build is tried again.
  const paths = new Map<string, Promise<ReceivedMessages>>();
  const pathOf = (queueUrl: string) => {
    let path = paths.get(queueUrl);
    if (!path) {
      path = receivedMessages(handling, options, queueUrl).catch((error: unknown) => {
        paths.delete(queueUrl);
        throw error;
      });
      paths.set(queueUrl, path);
    }
    return path;
  };
  return async (event, context) => {
    if (event.Records.length === 0) return { batchItemFailures: [] };
    const remainingMs = context.getRemainingTimeInMillis();
    const deadline = Date.now() + remainingMs - settleReserve(remainingMs, options.settleReserveMs);
    const byQueue = new Map<string, SqsEvent['Records']>();
    for (const record of event.Records) {
      const queueUrl = options.queueUrl ?? queueUrlOfRecord(record.eventSourceARN, process.env.WORKER_QUEUE_URL);
      const records = byQueue.get(queueUrl);
      if (records) records.push(record);
      else byQueue.set(queueUrl, [record]);
    }
    const stays = new Set<string>();
    await Promise.all(
      [...byQueue].map(async ([queueUrl, records]) => {
        const received = await pathOf(queueUrl);
        received.useLambdaContext(context);
        for (const id of await received.process(records.map(messageOfRecord), { deadline })) stays.add(id);
        await received.flushMetrics();
      }),
    );
    return { batchItemFailures: event.Records.filter((record) => stays.has(record.messageId)).map((record) => ({ itemIdentifier: record.messageId })) };
  };
}
