import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';

/**
 * fauxqs does not implement ListDeadLetterSourceQueues (it answers InvalidAction). This
 * answers it on a client as SQS does, from the emulator's own state: the queues whose
 * redrive policy targets the given DLQ. Every other call goes to the emulator unchanged.
 */
export function answerDeadLetterSourceQueues(client: SQSClient, emulator: SQSClient): SQSClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'ListDeadLetterSourceQueuesCommand') return next(args);
      const { QueueUrl } = args.input as { QueueUrl: string };
      return { output: { queueUrls: await sourcesOf(emulator, QueueUrl), $metadata: {} }, response: {} };
    },
    { step: 'initialize', name: 'answerDeadLetterSourceQueues' },
  );
  return client;
}

async function sourcesOf(sqs: SQSClient, dlqUrl: string): Promise<string[]> {
  const arnOf = async (queueUrl: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
  const dlqArn = await arnOf(dlqUrl);
  const queues = (await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [];
  const sources: string[] = [];
  for (const queueUrl of queues) {
    const redrive = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }))).Attributes?.RedrivePolicy;
    if (redrive && (JSON.parse(redrive) as { deadLetterTargetArn?: string }).deadLetterTargetArn === dlqArn) sources.push(queueUrl);
  }
  return sources;
}

/**
 * A dead letter's `x-dead-letter` attribute, as the worker writes it for a permanent
 * failure, naming `sourceQueue` as where it came from: what a replay sends it back to,
 * unless that queue is not one of the DLQ's sources.
 */
export function deadLetterFrom(sourceQueue: string, originalMessageId: string) {
  const now = Date.now();
  const record = {
    reason: 'non-retryable',
    errorType: 'PERMANENT',
    error: 'x',
    attempts: 1,
    firstReceivedAt: now,
    deadLetteredAt: now,
    sourceQueue,
    originalMessageId,
  };
  return { DataType: 'String', StringValue: JSON.stringify(record) };
}
