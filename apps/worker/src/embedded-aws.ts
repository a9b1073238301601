import { startFauxqs } from 'fauxqs';

export interface EmbeddedAws {
  endpoint: string;
  queueUrl: string;
  dlqUrl: string;
  topicArn: string;
  stop(): Promise<void>;
}

/** Thrown when the embedded emulator cannot start, typically because its port is taken. */
export class EmbeddedAwsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddedAwsError';
  }
}

const QUEUE = 'requeue-jobs';
const DLQ = 'requeue-jobs-dlq';
const TOPIC = 'requeue-jobs';

/**
 * Starts fauxqs on 127.0.0.1 and creates the topic, the queue, the DLQ with redrive and a
 * raw-delivery subscription, so `npm start` needs no AWS account and no Docker.
 */
export async function startEmbeddedAws(port: number): Promise<EmbeddedAws> {
  let server: Awaited<ReturnType<typeof startFauxqs>>;
  try {
    server = await startFauxqs({ port, logger: false });
  } catch (cause) {
    throw new EmbeddedAwsError(
      `could not start the embedded emulator on 127.0.0.1:${port}: ${(cause as Error).message}. ` +
        'Another emulator may be running: point WORKER_QUEUE_URL and WORKER_DLQ_URL at it, or set WORKER_EMULATOR_PORT.',
      { cause },
    );
  }
  const dlq = server.createQueue(DLQ, { attributes: { MessageRetentionPeriod: '1209600' } });
  const queue = server.createQueue(QUEUE, {
    attributes: {
      VisibilityTimeout: '60',
      MessageRetentionPeriod: '1209600',
      ReceiveMessageWaitTimeSeconds: '20',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '5' }),
    },
  });
  const { topicArn } = server.createTopic(TOPIC);
  server.subscribe({ topic: TOPIC, queue: QUEUE, attributes: { RawMessageDelivery: 'true' } });
  return { endpoint: `http://127.0.0.1:${server.port}`, queueUrl: queue.queueUrl, dlqUrl: dlq.queueUrl, topicArn, stop: () => server.stop() };
}
