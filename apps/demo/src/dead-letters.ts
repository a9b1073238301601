import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** Reads every dead letter at the end of a run and leaves each in the DLQ, so the dashboard and the DLQ CLI still see them. */
export function readDeadLetters(sqs: SQSClient, dlqUrl: string): Promise<Message[]> {
  return dlqUrl.endsWith('.fifo') ? rotateFifoGroups(sqs, dlqUrl) : peek(sqs, dlqUrl);
}

function receive(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const command = new ReceiveMessageCommand({
    QueueUrl: queueUrl,
    MaxNumberOfMessages: 10,
    WaitTimeSeconds: 0,
    VisibilityTimeout: 30,
    MessageAttributeNames: ['All'],
    MessageSystemAttributeNames: ['All'],
  });
  return sqs.send(command).then((out) => out.Messages ?? []);
}

/** Every message, each hidden while the read goes on, then made visible again. */
async function peek(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (let messages = await receive(sqs, queueUrl); messages.length > 0; messages = await receive(sqs, queueUrl)) all.push(...messages);
  await release(sqs, queueUrl, all);
  return all;
}

/**
 * A FIFO DLQ keeps each dead letter in its message group, and SQS shows a group's later
 * messages only once those before them are gone. So each letter read is sent to the end
 * of its own group and then deleted: once a group's first copy comes round, every letter
 * of it has been read and the group stands in its order again. Only for the end of a
 * demo run, when no more dead letters arrive; the copies have new message ids.
 */
async function rotateFifoGroups(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const read: Message[] = [];
  const copies = new Set<string>();
  const cameRound: Message[] = [];
  for (let messages = await receive(sqs, queueUrl); messages.length > 0; messages = await receive(sqs, queueUrl)) {
    for (const message of messages) {
      // Kept hidden until the end: its group is whole again, and stays out of later receives.
      if (copies.has(message.MessageId ?? '')) {
        cameRound.push(message);
        continue;
      }
      read.push(message);
      const copy = await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: message.Body ?? '',
          MessageAttributes: message.MessageAttributes,
          MessageGroupId: message.Attributes?.MessageGroupId,
          MessageDeduplicationId: randomUUID(),
        }),
      );
      copies.add(copy.MessageId ?? '');
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
  await release(sqs, queueUrl, cameRound);
  return read;
}

async function release(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const entries = messages.slice(start, start + 10).map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}
