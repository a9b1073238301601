import type { Message } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { announceReady, benchClient, benchSettings, simulate } from './common.js';

/**
 * sqs-consumer at its best settings: batchSize 10, one consumer per 10 of concurrency.
 * BENCH_MODE=batch uses handleMessageBatch (the batch in parallel, successes acknowledged).
 */
const { queueUrl, endpoint, concurrency } = benchSettings();
const sqs = benchClient(endpoint);
const batch = process.env.BENCH_MODE === 'batch';
const attempt = (message: Message) => Number(message.Attributes?.ApproximateReceiveCount ?? 1);

for (let i = 0; i < Math.max(1, Math.round(concurrency / 10)); i++) {
  const consumer = Consumer.create({
    queueUrl,
    sqs,
    batchSize: 10,
    waitTimeSeconds: 20,
    messageSystemAttributeNames: ['ApproximateReceiveCount'],
    // A failed message comes back after 0-1 s, like the other systems' retry path.
    terminateVisibilityTimeout: () => Math.round(Math.random()),
    ...(batch
      ? {
          handleMessageBatch: async (messages: Message[]) => {
            const outcomes = await Promise.all(messages.map((m) => simulate(m.Body!, attempt(m)).then(() => true, () => false)));
            return messages.filter((_, j) => outcomes[j]);
          },
        }
      : {
          handleMessage: async (message: Message) => {
            await simulate(message.Body!, attempt(message));
            return message;
          },
        }),
  });
  consumer.on('error', () => undefined);
  consumer.on('processing_error', () => undefined);
  consumer.start();
}
announceReady();
