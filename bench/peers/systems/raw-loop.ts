import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { announceReady, benchClient, benchSettings, runBatch } from './common.js';

/**
 * The practical limit: N loops of receive(10) -> handle all ten at once -> one
 * DeleteMessageBatch, with no framework. A failed message gets visibility 0-1 s.
 */
const { queueUrl, endpoint, concurrency } = benchSettings();
const sqs = benchClient(endpoint);

async function loop(): Promise<never> {
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
    );
    const { done, failed } = await runBatch(Messages);
    if (done.length)
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
    if (failed.length) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: failed.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: Math.round(Math.random()) })),
        }),
      );
    }
  }
}

announceReady();
await Promise.all(Array.from({ length: Math.max(1, Math.round(concurrency / 10)) }, loop));
