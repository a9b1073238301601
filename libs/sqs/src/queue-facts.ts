import { queueUnavailable } from './queue-unavailable.js';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** What the worker needs to know of its queue before it receives. */
export interface QueueFacts {
  visibilityTimeoutSeconds: number;
  /** The redrive policy's backstop, when the queue has one. */
  maxReceiveCount: number | undefined;
  fifo: boolean;
  /** FIFO: the longest wait a group's head spends in the worker instead of back in SQS. 0 on a standard queue, or when off. */
  retryInPlaceSeconds: number;
}

/** The default bound on a FIFO head's wait in place: long enough for the first backoffs, short enough that a held slot is not missed. */
const DEFAULT_IN_PLACE_SECONDS = 60;

/**
 * A wait in place never outlasts the visibility timeout: a crash during it returns the
 * group within one timeout, as soon as the hidden retry would have. The heartbeat keeps
 * the group invisible meanwhile.
 */
function retryInPlaceSeconds(fifo: boolean, visibilityTimeoutSeconds: number, given: number | undefined): number {
  if (!fifo) return 0;
  return Math.min(given ?? DEFAULT_IN_PLACE_SECONDS, visibilityTimeoutSeconds);
}

/** Reads the queue's visibility timeout and redrive policy, unless both are given. */
export async function readQueueFacts(
  sqs: SQSClient,
  queueUrl: string,
  given: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number; fifoRetryInPlaceSeconds?: number },
): Promise<QueueFacts> {
  // SQS requires the .fifo suffix on every FIFO queue's name.
  const fifo = queueUrl.endsWith('.fifo');
  if (given.visibilityTimeoutSeconds !== undefined && given.maxReceiveCount !== undefined) {
    const { visibilityTimeoutSeconds, maxReceiveCount } = given;
    return { visibilityTimeoutSeconds, maxReceiveCount, fifo, retryInPlaceSeconds: retryInPlaceSeconds(fifo, visibilityTimeoutSeconds, given.fifoRetryInPlaceSeconds) };
  }
  const response = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] })).catch((error: unknown) => {
    throw queueUnavailable(error, queueUrl);
  });
  const redrive = response.Attributes?.RedrivePolicy;
  let maxReceiveCount = given.maxReceiveCount;
  if (maxReceiveCount === undefined && redrive) {
    const parsed = Number((JSON.parse(redrive) as { maxReceiveCount?: unknown }).maxReceiveCount);
    if (Number.isInteger(parsed) && parsed > 0) maxReceiveCount = parsed;
  }
  const visibilityTimeoutSeconds = given.visibilityTimeoutSeconds ?? Number(response.Attributes?.VisibilityTimeout ?? 30);
  return { visibilityTimeoutSeconds, maxReceiveCount, fifo, retryInPlaceSeconds: retryInPlaceSeconds(fifo, visibilityTimeoutSeconds, given.fifoRetryInPlaceSeconds) };
}
