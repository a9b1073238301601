import { QueueUnavailableError } from '../receive/queue-unavailable.js';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_MESSAGE_BYTES, RESERVED_BYTES } from '../message/message-attributes.js';

/** What the worker needs to know of its queue before it receives. */
export interface QueueFacts {
  visibilityTimeoutSeconds: number;
  /** The redrive policy's backstop, when the queue has one. */
  maxReceiveCount: number | undefined;
  fifo: boolean;
  /**
   * The longest wait spent in the worker instead of back in SQS, for a FIFO group's head
   * and for a message that cannot carry `x-retry` (its retries would otherwise each cost
   * a receive). 0 when off.
   */
  retryInPlaceSeconds: number;
  /**
   * The longest deferral (a paused dependency, a `Retry-After`) a message of a standard
   * queue spends in the worker, its running slot parked for the others: no send, delete
   * or receive. 0 when off.
   */
  deferInPlaceSeconds: number;
  /** The queue's `MaximumMessageSize`: a retry copy must fit within it. */
  maximumMessageSize: number;
  /** The DLQ's `MaximumMessageSize`: a dead letter must fit within it. */
  deadLetterMaximumMessageSize: number;
}

/** The default bound on a wait in place: long enough for the first backoffs, short enough that a held slot is not missed. */
const DEFAULT_IN_PLACE_SECONDS = 60;
/**
 * A deferral this short waits in the worker: a copy would cost a send, a delete and a
 * receive to wait a few seconds. Longer, the message (it holds a place the poller could
 * fill) goes back to SQS.
 */
const DEFER_IN_PLACE_SECONDS = 20;

export interface GivenQueueFacts {
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  fifoRetryInPlaceSeconds?: number;
}

/**
 * A retry in place never outlasts the visibility timeout: a crash during it returns the
 * message within one timeout, as soon as the hidden retry would have. The heartbeat keeps
 * it invisible meanwhile. A deferral in place is not bound by it: a crash that returns a
 * deferred message early costs one more deferral, and nothing else. Bound by a short
 * visibility timeout, every deferral was a copy; a deferral repeats while a dependency or
 * another delivery's claim holds the message, and a copy whose answer was lost goes out
 * twice, so under lost answers the message multiplied
 * (docs/design/2026-11-29-simulation-fleet.md).
 */
function inPlaceBounds(
  fifo: boolean,
  visibilityTimeoutSeconds: number,
  given: number | undefined,
): Pick<QueueFacts, 'retryInPlaceSeconds' | 'deferInPlaceSeconds'> {
  const retryInPlaceSeconds = Math.min(fifo ? (given ?? DEFAULT_IN_PLACE_SECONDS) : DEFAULT_IN_PLACE_SECONDS, visibilityTimeoutSeconds);
  return { retryInPlaceSeconds, deferInPlaceSeconds: fifo ? 0 : DEFER_IN_PLACE_SECONDS };
}

/**
 * Reads the queue's visibility timeout, redrive policy and size limit, and the DLQ's size
 * limit. Given a visibility timeout and a `maxReceiveCount` (the Lambda adapter), it reads
 * nothing and takes SQS's largest size for both.
 */
export async function readQueueFacts(sqs: SQSClient, queueUrl: string, given: GivenQueueFacts, deadLetterQueueUrl?: string): Promise<QueueFacts> {
  // SQS requires the .fifo suffix on every FIFO queue's name.
  const fifo = queueUrl.endsWith('.fifo');
  if (given.visibilityTimeoutSeconds !== undefined && given.maxReceiveCount !== undefined) {
    const { visibilityTimeoutSeconds, maxReceiveCount } = given;
    const bounds = inPlaceBounds(fifo, visibilityTimeoutSeconds, given.fifoRetryInPlaceSeconds);
    return {
      visibilityTimeoutSeconds,
      maxReceiveCount,
      fifo,
      ...bounds,
      maximumMessageSize: MAX_MESSAGE_BYTES,
      deadLetterMaximumMessageSize: MAX_MESSAGE_BYTES,
    };
  }
  const [response, deadLetterSize] = await Promise.all([
    sqs
      .send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy', 'MaximumMessageSize'] }))
      .catch((error: unknown) => {
        throw QueueUnavailableError.from(error, queueUrl);
      }),
    deadLetterQueueUrl === undefined ? undefined : readMaximumMessageSize(sqs, deadLetterQueueUrl),
  ]);
  const redrive = response.Attributes?.RedrivePolicy;
  let maxReceiveCount = given.maxReceiveCount;
  if (maxReceiveCount === undefined && redrive) {
    const parsed = Number((JSON.parse(redrive) as { maxReceiveCount?: unknown }).maxReceiveCount);
    if (Number.isInteger(parsed) && parsed > 0) maxReceiveCount = parsed;
  }
  const visibilityTimeoutSeconds = given.visibilityTimeoutSeconds ?? Number(response.Attributes?.VisibilityTimeout ?? 30);
  return {
    visibilityTimeoutSeconds,
    maxReceiveCount,
    fifo,
    ...inPlaceBounds(fifo, visibilityTimeoutSeconds, given.fifoRetryInPlaceSeconds),
    maximumMessageSize: sizeOf(response.Attributes?.MaximumMessageSize),
    deadLetterMaximumMessageSize: deadLetterSize ?? MAX_MESSAGE_BYTES,
  };
}

/** A DLQ the worker may not read the attributes of is taken at SQS's largest size: the send says otherwise if it must. */
async function readMaximumMessageSize(sqs: SQSClient, queueUrl: string): Promise<number | undefined> {
  try {
    const response = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['MaximumMessageSize'] }));
    return sizeOf(response.Attributes?.MaximumMessageSize);
  } catch {
    return undefined;
  }
}

function sizeOf(raw: string | undefined): number {
  const parsed = Number(raw);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : MAX_MESSAGE_BYTES;
}

/**
 * What to change when the two queues leave a dead letter no room for its reason: a message
 * as large as the queue takes, plus `x-dead-letter`, must fit within the DLQ's limit.
 */
export function deadLetterRoomProblem(facts: Pick<QueueFacts, 'maximumMessageSize' | 'deadLetterMaximumMessageSize'>): string | undefined {
  const { maximumMessageSize, deadLetterMaximumMessageSize } = facts;
  if (maximumMessageSize + RESERVED_BYTES <= deadLetterMaximumMessageSize) return undefined;
  return (
    `the queue takes messages of up to ${maximumMessageSize} bytes and its DLQ up to ${deadLetterMaximumMessageSize}: a dead letter larger than ` +
    `${deadLetterMaximumMessageSize - RESERVED_BYTES} bytes goes without its reason (x-dead-letter). Set the queue's MaximumMessageSize to at most ` +
    `${deadLetterMaximumMessageSize - RESERVED_BYTES} (RetryingQueue does), or the DLQ's to ${Math.min(MAX_MESSAGE_BYTES, maximumMessageSize + RESERVED_BYTES)}`
  );
}
