import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SqsEventRecord, SqsLambdaHandler } from '@requeue/lambda';

/** An SDK message as Lambda's event source mapping hands it to a function: camelCase, binary values in base64. */
export function lambdaRecord(message: Message, queueArn: string): SqsEventRecord {
  const messageAttributes: SqsEventRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType!,
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body!,
    attributes: message.Attributes as SqsEventRecord['attributes'],
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

export interface EventSourceMapping {
  /** Invocations so far, each with the records it got and the ones it reported. */
  invocations: Array<{ records: string[]; failures: string[] }>;
  stop(): Promise<void>;
}

/**
 * What Lambda's SQS event source mapping does, against a real queue: receive a batch,
 * invoke the function with it, then delete the records the function did not report in
 * `batchItemFailures` (those stay until their visibility timeout runs out). One batch at a
 * time, as a mapping with a maximum concurrency of 1.
 */
export async function startEventSourceMapping(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsLambdaHandler,
  options: { batchSize?: number; timeoutMs?: number; queueArn?: string } = {},
): Promise<EventSourceMapping> {
  const arn = options.queueArn ?? (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const invocations: EventSourceMapping['invocations'] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: options.batchSize ?? 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0 || stopped) continue;
      const started = Date.now();
      const timeoutMs = options.timeoutMs ?? 30_000;
      const response = await handler({ Records: messages.map((m) => lambdaRecord(m, arn)) }, { getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started), awsRequestId: `test-${invocations.length}` });
      const failures = response.batchItemFailures.map((f) => f.itemIdentifier);
      invocations.push({ records: messages.map((m) => m.MessageId!), failures });
      const done = messages.filter((m) => !failures.includes(m.MessageId!));
      for (let start = 0; start < done.length; start += 10) {
        const batch = done.slice(start, start + 10);
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      }
    }
  })();
  return {
    invocations,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
