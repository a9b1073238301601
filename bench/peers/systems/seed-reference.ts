import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { seedReferenceDelaySeconds } from '../../herd/seed-reference-policy.js';
import { announceReady, benchClient, benchSettings } from './common.js';
import { callHandler } from './seed-handler.js';

/**
 * The seed article's worker as written, for comparison only: one message per receive,
 * handled sequentially, retry state in the body, and on failure it deletes BEFORE it
 * sends the delayed copy (a crash in between loses the message). Its defects are kept.
 */
const { queueUrl, endpoint } = benchSettings();
const sqs = benchClient(endpoint, { sdkDefaults: true });

function isRetryable(error: Error): boolean {
  return /temporary|timeout|rate limit|429|503|quota/i.test(error.message);
}

async function retryWithBackoff(error: Error, message: Message): Promise<void> {
  if (!isRetryable(error)) return;
  const body = JSON.parse(message.Body!) as { retryCount?: number };
  const retryCount = body.retryCount ?? 0;
  const delaySeconds = seedReferenceDelaySeconds(error.message, retryCount, Math.random);
  if (delaySeconds === undefined) return;
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ ...body, retryCount: retryCount + 1, originalMessageId: message.MessageId, retryTimestamp: new Date().toISOString() }),
      DelaySeconds: Math.min(delaySeconds, 900),
    }),
  );
}

announceReady();
for (;;) {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 20 }));
  for (const message of Messages) {
    try {
      await callHandler(message.Body!);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    } catch (error) {
      await retryWithBackoff(error as Error, message);
    }
  }
}
