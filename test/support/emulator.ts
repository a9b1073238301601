import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { SNSClient } from '@aws-sdk/client-sns';
import { startFauxqs } from 'fauxqs';

export const TEST_REGION = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

export interface QueuePair {
  queueUrl: string;
  dlqUrl: string;
  queueArn: string;
}

let counter = 0;

/** An embedded fauxqs on a free 127.0.0.1 port, with real SQS and SNS clients pointed at it. */
export async function startEmulator(options: { port?: number; dataDir?: string } = {}) {
  const server = await startFauxqs({ port: options.port ?? 0, logger: false, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const endpoint = `http://127.0.0.1:${server.port}`;
  const sqs = new SQSClient({ endpoint, region: TEST_REGION, credentials });
  const sns = new SNSClient({ endpoint, region: TEST_REGION, credentials });

  async function createQueues(options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number; fifo?: boolean } = {}): Promise<QueuePair> {
    const suffix = options.fifo ? '.fifo' : '';
    const name = `q${Date.now().toString(36)}${(counter++).toString(36)}`;
    const fifoAttributes: Record<string, string> = options.fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {};
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq${suffix}`, Attributes: fifoAttributes }));
    const dlqArn = await arnOf(dlq.QueueUrl!);
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}${suffix}`,
        Attributes: {
          ...fifoAttributes,
          VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: String(options.maxReceiveCount ?? 5) }),
        },
      }),
    );
    return { queueUrl: queue.QueueUrl!, dlqUrl: dlq.QueueUrl!, queueArn: await arnOf(queue.QueueUrl!) };
  }

  async function arnOf(queueUrl: string): Promise<string> {
    const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    return out.Attributes!.QueueArn!;
  }

  /** Counts of visible, in-flight and delayed messages. */
  async function depth(queueUrl: string) {
    const out = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const a = out.Attributes ?? {};
    return {
      visible: Number(a.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }

  /** Receives everything visible now (hiding it for `hideSeconds`) without deleting it. */
  async function drain(queueUrl: string, hideSeconds = 30): Promise<Message[]> {
    const all: Message[] = [];
    for (;;) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: hideSeconds,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      if (!out.Messages?.length) return all;
      all.push(...out.Messages);
    }
  }

  return {
    server,
    endpoint,
    port: server.port,
    sqs,
    sns,
    createQueues,
    depth,
    drain,
    async stop() {
      sqs.destroy();
      sns.destroy();
      await server.stop();
    },
  };
}

/** Polls `check` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: last });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
