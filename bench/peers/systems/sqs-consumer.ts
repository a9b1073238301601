import type { Message } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { announceReady, attemptOf, benchClient, benchSettings, handleBatch, simulate } from './common.js';

/**
 * sqs-consumer at its best settings: batchSize 10, one consumer per 10 of concurrency.
 * BENCH_MODE=batch uses handleMessageBatch (the batch in parallel, successes acknowledged).
 */
const { queueUrl, endpoint, concurrency } = benchSettings();
const sqs = benchClient(endpoint);
const batch = process.env.BENCH_MODE === 'batch';

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
      ? { handleMessageBatch: handleBatch }
      : {
          handleMessage: async (message: Message) => {
            await simulate(message.Body!, attemptOf(message));
            return message;
          },
        }),
  });
  consumer.on('error', () => undefined);
  consumer.on('processing_error', () => undefined);
  consumer.start();
}
announceReady();
