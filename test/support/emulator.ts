import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { queueDepth } from '@requeue/sqs/dead-letters';
import { SNSClient } from '@aws-sdk/client-sns';
import { requeueStackTemplate } from '@requeue/infra';
import { provisionFromTemplate, startLoopbackEmulator } from '@requeue/local-aws';
import { Duration } from 'aws-cdk-lib';
import { startFauxqs } from 'fauxqs';
import { keepMessagesMadeVisibleAgain } from './fauxqs-persistence.js';

export const TEST_REGION = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

export interface QueuePair {
  queueUrl: string;
  dlqUrl: string;
  queueArn: string;
  /** The stack's topic, subscribed to the queue with raw delivery. */
  topicArn: string;
}

let counter = 0;

async function startPersistentFauxqs(port: number, dataDir: string) {
  await keepMessagesMadeVisibleAgain();
  return startFauxqs({ port, logger: false, dataDir });
}

/**
 * An embedded fauxqs with real SQS and SNS clients pointed at it: on 127.0.0.1 only, as
 * the app runs it. With `dataDir` (the restart suites), fauxqs's own persistent starter,
 * which listens on every interface: only those suites need state to survive a restart.
 */
export async function startEmulator(options: { port?: number; dataDir?: string } = {}) {
  const other = otherImplementation();
  const server: { port: number; stop(): Promise<void> } = other
    ? other
    : options.dataDir
      ? await startPersistentFauxqs(options.port ?? 0, options.dataDir)
      : await startLoopbackEmulator(options.port ?? 0);
  const endpoint = `http://127.0.0.1:${server.port}`;
  const sqs = new SQSClient({ endpoint, region: TEST_REGION, credentials });
  const sns = new SNSClient({ endpoint, region: TEST_REGION, credentials });
  return {
    server,
    endpoint,
    port: server.port,
    sqs,
    sns,
    createQueues: (queueOptions: StackQueueOptions = {}) => createStackQueues(sqs, sns, queueOptions),
    /** Creates a deleted queue again under its old name; returns its URL. */
    recreateQueue: async (queueUrl: string) => (await sqs.send(new CreateQueueCommand({ QueueName: queueUrl.split('/').pop()! }))).QueueUrl!,
    /** Counts of visible, in-flight and delayed messages. */
    depth: (queueUrl: string) => queueDepth(sqs, queueUrl),
    drain: (queueUrl: string, hideSeconds = 30) => drain(sqs, queueUrl, hideSeconds),
    /** Receives and deletes everything, in the order SQS gives it: a FIFO queue's groups each in order, as SQS shows them. */
    consume: (queueUrl: string) => consume(sqs, queueUrl),
    async stop() {
      sqs.destroy();
      sns.destroy();
      await server.stop();
    },
  };
}

/**
 * `REQUEUE_TEST_SQS_ENDPOINT=http://127.0.0.1:<port>` runs the suites against another SQS
 * and SNS implementation already listening there (moto, LocalStack) instead of fauxqs:
 * loopback only, so no suite ever reaches AWS.
 */
function otherImplementation(): { port: number; stop(): Promise<void> } | undefined {
  const given = process.env.REQUEUE_TEST_SQS_ENDPOINT;
  if (!given) return undefined;
  const url = new URL(given);
  if (url.hostname !== '127.0.0.1' || !url.port) throw new Error(`REQUEUE_TEST_SQS_ENDPOINT must be http://127.0.0.1:<port>, got ${given}`);
  return { port: Number(url.port), stop: async () => undefined };
}

interface StackQueueOptions {
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  rawMessageDelivery?: boolean;
  fifo?: boolean;
}

/**
 * The stack's queues (main queue, DLQ with redrive) and topic, provisioned from its
 * synthesized template with these props, under unique names: FIFO too, as
 * `RetryingQueue` builds it (a FIFO topic, queue and DLQ).
 */
async function createStackQueues(sqs: SQSClient, sns: SNSClient, options: StackQueueOptions): Promise<QueuePair> {
  const name = `q${Date.now().toString(36)}${(counter++).toString(36)}`;
  const template = requeueStackTemplate({
    queue: {
      queueName: name,
      visibilityTimeout: Duration.seconds(options.visibilityTimeoutSeconds ?? 30),
      maxReceiveCount: options.maxReceiveCount ?? 5,
      rawMessageDelivery: options.rawMessageDelivery,
      fifo: options.fifo,
    },
  });
  const stack = await provisionFromTemplate({ sqs, sns, template, stackName: name });
  const { QueueUrl, DLQUrl, TopicArn } = stack.outputs;
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: QueueUrl!, AttributeNames: ['QueueArn'] }));
  return { queueUrl: QueueUrl!, dlqUrl: DLQUrl!, topicArn: TopicArn!, queueArn: arn.Attributes!.QueueArn! };
}

/** Receives everything visible now (hiding it for `hideSeconds`) without deleting it. */
async function drain(sqs: SQSClient, queueUrl: string, hideSeconds: number): Promise<Message[]> {
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

async function consume(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (!out.Messages?.length) return all;
    all.push(...out.Messages);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: out.Messages.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  }
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
