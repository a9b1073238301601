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
