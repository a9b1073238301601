import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** What the worker needs to know of its queue before it receives. */
export interface QueueFacts {
  visibilityTimeoutSeconds: number;
  /** The redrive policy's backstop, when the queue has one. */
  maxReceiveCount: number | undefined;
  fifo: boolean;
}

/** Reads the queue's visibility timeout and redrive policy, unless both are given. */
export async function readQueueFacts(
  sqs: SQSClient,
  queueUrl: string,
  given: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number },
): Promise<QueueFacts> {
  // SQS requires the .fifo suffix on every FIFO queue's name.
  const fifo = queueUrl.endsWith('.fifo');
  if (given.visibilityTimeoutSeconds !== undefined && given.maxReceiveCount !== undefined) {
    return { visibilityTimeoutSeconds: given.visibilityTimeoutSeconds, maxReceiveCount: given.maxReceiveCount, fifo };
  }
  const response = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }));
  const redrive = response.Attributes?.RedrivePolicy;
  let maxReceiveCount = given.maxReceiveCount;
  if (maxReceiveCount === undefined && redrive) {
    const parsed = Number((JSON.parse(redrive) as { maxReceiveCount?: unknown }).maxReceiveCount);
    if (Number.isInteger(parsed) && parsed > 0) maxReceiveCount = parsed;
  }
  return {
    visibilityTimeoutSeconds: given.visibilityTimeoutSeconds ?? Number(response.Attributes?.VisibilityTimeout ?? 30),
    maxReceiveCount,
    fifo,
  };
}
