import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** A queue's approximate message counts, as SQS reports them. */
export interface QueueDepth {
  /** Waiting to be received. */
  visible: number;
  /** Received and not yet deleted or released. */
  inFlight: number;
  /** Sent with a delay that has not run out: where retries wait. */
  delayed: number;
}

/** SQS's approximate counts for a queue, the three numbers every view of a queue shows. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const a = out.Attributes ?? {};
  return {
    visible: Number(a.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}
