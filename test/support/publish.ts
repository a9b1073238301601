import { SendMessageBatchCommand, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';

export interface Outgoing {
  body: string;
  attributes?: Record<string, MessageAttributeValue>;
}

/** Sends messages straight to a queue, ten per call, failing loudly on any rejected entry. */
export async function sendAll(sqs: SQSClient, queueUrl: string, messages: readonly Outgoing[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((m, i) => ({ Id: String(i), MessageBody: m.body, MessageAttributes: m.attributes })),
      }),
    );
    if (out.Failed?.length) throw new Error(`SendMessageBatch rejected ${out.Failed.length} entries: ${JSON.stringify(out.Failed)}`);
  }
}

export const simulation = (id: string, simulate?: Record<string, unknown>): Outgoing => ({ body: JSON.stringify(simulate ? { id, simulate } : { id }) });
