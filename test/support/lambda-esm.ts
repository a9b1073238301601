import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SqsLambdaHandler } from '@requeue/lambda';
import { startLocalEventSource, type LocalSqsHandler } from '@requeue/local-aws';

export interface EventSourceMapping {
  /** Invocations so far, each with the records it got and the ones that stayed (reported, or all when it threw). */
  readonly invocations: ReadonlyArray<{ records: string[]; failures: string[] }>;
  stop(): Promise<void>;
}

/**
 * Lambda's SQS event source mapping against a real queue, one batch at a time: the
 * `requeue local --invoke` poller, with partial batch responses on.
 */
export async function startEventSourceMapping(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsLambdaHandler,
  options: { batchSize?: number; timeoutMs?: number; queueArn?: string } = {},
): Promise<EventSourceMapping> {
  const queueArn =
    options.queueArn ?? (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const source = {
    function: 'test',
    queueUrl,
    queueArn,
    batchSize: options.batchSize ?? 10,
    reportsBatchItemFailures: true,
    timeoutSeconds: (options.timeoutMs ?? 30_000) / 1000,
  };
  const running = startLocalEventSource({ sqs, source, handler: handler as unknown as LocalSqsHandler });
  return {
    get invocations() {
      return running.invocations.map((invocation) => ({ records: invocation.records, failures: invocation.failed }));
    },
    stop: () => running.stop(),
  };
}
