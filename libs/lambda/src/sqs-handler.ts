import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerConfigError, type MessageHandler } from '@requeue/sqs';
import { ReceivedMessages, type ReceivedOptions } from '@requeue/sqs/received';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from './lambda-event.js';
import { optionsFromEnv } from './env-options.js';
import { messageOfRecord, queueUrlOfArn } from './records.js';

/**
 * How `sqsHandler` runs: the worker's options, less what Lambda's event source mapping does
 * itself. Where `WORKER_QUEUE_URL` and `WORKER_DLQ_URL` are set (`QueueWorkerFunction` sets
 * them), the environment configures what these leave out, as it does the container
 * worker: `RETRY_POLICY`, `METRICS_NAMESPACE`, `WORKER_IDEMPOTENCY`, `WORKER_HANDLER_TIMEOUT_MS`,
 * `WORKER_RETRY_STATE_KEYS` (or `WORKER_RETRY_STATE_KEYS_SECRET`, a secret read at cold start).
 */
export interface SqsHandlerOptions<Body = unknown> extends Omit<ReceivedOptions<Body>, 'handler' | 'sqs' | 'queueUrl' | 'deadLetterQueueUrl' | 'maxInFlight'> {
  /** @default a client from the environment (region, credentials, `AWS_ENDPOINT_URL`) */
  sqs?: SQSClient;
  /** Where retry copies go. @default WORKER_QUEUE_URL, else the URL of the record's `eventSourceARN` */
  queueUrl?: string;
  /** Where dead letters go. @default WORKER_DLQ_URL */
  deadLetterQueueUrl?: string;
  /** At most this many records of a batch run at once (FIFO: this many groups). @default 10 */
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

async function receivedMessages<Body>(handler: MessageHandler<Body>, options: SqsHandlerOptions<Body>, eventSourceArn: string): Promise<ReceivedMessages> {
  const { sqs, queueUrl, deadLetterQueueUrl, concurrency, settleReserveMs: _reserve, ...rest } = options;
  const dlq = deadLetterQueueUrl ?? process.env.WORKER_DLQ_URL;
  if (!dlq) throw new SqsWorkerConfigError('deadLetterQueueUrl', 'is not set: pass it, or set WORKER_DLQ_URL (QueueWorkerFunction sets it)');
  return ReceivedMessages.create<Body>({
    ...((await optionsFromEnv(process.env)) as Partial<ReceivedOptions<Body>>),
    ...rest,
    handler,
    sqs: sqs ?? new SQSClient({}),
    queueUrl: queueUrl ?? process.env.WORKER_QUEUE_URL ?? queueUrlOfArn(eventSourceArn),
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
  let ready: Promise<ReceivedMessages> | undefined;
  return async (event, context) => {
    if (event.Records.length === 0) return { batchItemFailures: [] };
    // Built on the first event, kept for the container's life; a failed build is tried again.
    ready ??= receivedMessages(handler, options, event.Records[0]!.eventSourceARN).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    const received = await ready;
    received.useLambdaContext(context);
    const remainingMs = context.getRemainingTimeInMillis();
    const deadline = Date.now() + remainingMs - settleReserve(remainingMs, options.settleReserveMs);
    const stays = await received.process(event.Records.map(messageOfRecord), { deadline });
    await received.flushMetrics();
    return { batchItemFailures: event.Records.filter((record) => stays.has(record.messageId)).map((record) => ({ itemIdentifier: record.messageId })) };
  };
}
