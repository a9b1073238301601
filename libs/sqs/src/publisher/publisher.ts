import { PublishBatchCommand, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError } from '@requeue/retry';
import { MAX_MESSAGE_BYTES, RESERVED_BYTES } from '../message/message-attributes.js';
import { chunkBatches } from './batches.js';
import { encodeMessage, type Destination, type EncodedMessage, type OutgoingMessage } from './outgoing.js';
import { PublishTracer } from './publish-span.js';
import { backoffDelay, errorCode, isRetryable, type Backoff } from './retrying.js';

/** The clients and retry settings of a `RequeuePublisher`. */
export interface PublisherOptions {
  /** For `send` and `sendBatch`. */
  sqs?: SQSClient;
  /** For `publish` and `publishBatch`. */
  sns?: SNSClient;
  /** Throttled or AWS-side failures are sent again up to this many times. @default 5 */
  maxRetries?: number;
  /** First retry waits up to this long, doubling, with full jitter. @default 100 */
  baseDelayMs?: number;
  /** @default 5000 */
  maxDelayMs?: number;
  /**
   * The custom strategies the consumers register, so a `retryPolicy` naming another one is
   * refused before sending. @default any name is accepted
   */
  strategyNames?: readonly string[];
  /**
   * A message attribute that carries each message's `tenant` as well, for consumers that
   * read the tenant from an attribute; it counts among the 9 attributes. @default none
   */
  tenantAttribute?: string;
  /**
   * OpenTelemetry: a PRODUCER span per call, its context in each message's `traceparent`
   * (room permitting) and, to a queue, in `AWSTraceHeader`. `false` turns both off.
   * `tracerProvider` is an OpenTelemetry `TracerProvider`; without the optional peer
   * `@opentelemetry/api` installed nothing is traced. @default on, with the global tracer provider
   */
  tracing?: false | { tracerProvider?: { getTracer(name: string, version?: string): object } };
  /** For tests. @default Math.random */
  random?: () => number;
  /** For tests. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/** One message sent. */
export interface PublishResult {
  /** The id SQS or SNS gave the message. */
  messageId: string;
  /** FIFO only. */
  sequenceNumber?: string;
}

/** A batch's outcome, entry by entry, by index in the list given. */
export interface BatchResult {
  /** Entries sent, with the id each was given. */
  successful: Array<{ index: number; messageId: string; sequenceNumber?: string }>;
  /**
   * Entries not sent after their retries: the service's code and message, and whether the fault was
   * the sender's.
   */
  failed: Array<{ index: number; code: string; message: string; senderFault: boolean }>;
}

/** The publisher lacks what a call needs, e.g. the client for it. */
export class PublisherConfigError extends ConfigError {
  constructor(option: string, problem: string) {
    super(option, problem);
    this.name = 'PublisherConfigError';
  }
}

/** A single send or publish that failed after its retries. */
export class PublishError extends Error {
  constructor(
    /** The service's error code, e.g. `ThrottlingException`. */
    readonly code: string,
    /** The queue URL or topic ARN it was sent to. */
    readonly destination: string,
    options: { cause: unknown },
  ) {
    super(`${destination}: ${code}: ${errorCode(options.cause).message}`, options);
    this.name = 'PublishError';
  }
}

type Entry = { Id: string; message: EncodedMessage };
type CallResult = {
  successful: Array<{ Id?: string; MessageId?: string; SequenceNumber?: string }>;
  failed: Array<{ Id?: string; Code?: string; Message?: string; SenderFault?: boolean }>;
};

/**
 * Sends messages the way requeue reads them: per-message retry policy in
 * `x-retry-policy` (validated first), your attributes within the budget a retry needs, FIFO
 * group and deduplication ids, batches cut to 10 entries and the size limit, and
 * throttled entries sent again with backoff. A batch reports each entry.
 */
export class RequeuePublisher {
  private readonly backoff: Backoff;
  private readonly tracer: PublishTracer;

  constructor(private readonly options: PublisherOptions) {
    this.tracer = new PublishTracer(options.tracing);
    this.backoff = {
      maxRetries: options.maxRetries ?? 5,
      baseDelayMs: options.baseDelayMs ?? 100,
      maxDelayMs: options.maxDelayMs ?? 5000,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
  }

  /** Sends one message to an SQS queue. */
  async send(queueUrl: string, message: OutgoingMessage): Promise<PublishResult> {
    const sqs = this.sqs();
    return this.single(queueUrl, message, queueDestination(queueUrl), async (m) =>
      sent(await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, ...sqsFields(m) }))),
    );
  }

  /** Sends messages to an SQS queue in batches; every message is checked before the first is sent. */
  async sendBatch(queueUrl: string, messages: readonly OutgoingMessage[]): Promise<BatchResult> {
    const sqs = this.sqs();
    return this.batch(queueUrl, messages, queueDestination(queueUrl), (entries) => sqsBatch(sqs, queueUrl, entries));
  }

  /** Publishes one message to an SNS topic. */
  async publish(topicArn: string, message: OutgoingMessage): Promise<PublishResult> {
    const sns = this.sns();
    return this.single(topicArn, message, topicDestination(topicArn), async (m) =>
      sent(await sns.send(new PublishCommand({ TopicArn: topicArn, ...snsFields(m) }))),
    );
  }

  /** Publishes messages to an SNS topic in batches; every message is checked before the first is sent. */
  async publishBatch(topicArn: string, messages: readonly OutgoingMessage[]): Promise<BatchResult> {
    const sns = this.sns();
    return this.batch(topicArn, messages, topicDestination(topicArn), (entries) => snsBatch(sns, topicArn, entries));
  }

  /** One message, sent again while it is throttled, until the retries run out. */
  private async single(
    destination: string,
    message: OutgoingMessage,
    to: Destination,
    call: (message: EncodedMessage) => Promise<PublishResult>,
  ): Promise<PublishResult> {
    const encoded = encodeMessage(message, 0, to, this.options);
    return this.tracer.around({ to, address: destination, count: 1 }, [encoded], async () => {
      for (let retry = 0; ; retry++) {
        try {
          return await call(encoded);
        } catch (error) {
          const { code, senderFault } = errorCode(error);
          if (!isRetryable(code, senderFault) || retry >= this.backoff.maxRetries) throw new PublishError(code, destination, { cause: error });
          await this.backoff.sleep(backoffDelay(this.backoff, retry + 1));
        }
      }
    });
  }

  private async batch(
    address: string,
    messages: readonly OutgoingMessage[],
    to: Destination,
    call: (entries: Entry[]) => Promise<CallResult>,
  ): Promise<BatchResult> {
    const encoded = messages.map((m, i) => encodeMessage(m, i, to, this.options));
    return this.tracer.around({ to, address, count: encoded.length }, encoded, async () => {
      const result: BatchResult = { successful: [], failed: [] };
      for (const indexes of chunkBatches(encoded, to.maxBytes)) await this.sendChunk(indexes, encoded, call, result);
      result.successful.sort((a, b) => a.index - b.index);
      result.failed.sort((a, b) => a.index - b.index);
      return result;
    });
  }

  /** One batch call, then again for its throttled entries, until they pass or the retries run out. */
  private async sendChunk(indexes: number[], encoded: EncodedMessage[], call: (entries: Entry[]) => Promise<CallResult>, result: BatchResult): Promise<void> {
    let pending = indexes;
    for (let retry = 0; pending.length > 0; retry++) {
      if (retry > 0) await this.backoff.sleep(backoffDelay(this.backoff, retry));
      const last = retry >= this.backoff.maxRetries;
      const outcome = await call(pending.map((index) => ({ Id: String(index), message: encoded[index]! }))).catch((error: unknown) => {
        const { code, message, senderFault } = errorCode(error);
        return { successful: [], failed: pending.map((index) => ({ Id: String(index), Code: code, Message: message, SenderFault: senderFault })) };
      });
      for (const ok of outcome.successful) result.successful.push({ index: Number(ok.Id), ...sent(ok) });
      const again: number[] = [];
      for (const failure of outcome.failed) {
        const entry = { index: Number(failure.Id), code: failure.Code ?? 'Unknown', message: failure.Message ?? '', senderFault: failure.SenderFault ?? true };
        if (!last && isRetryable(entry.code, entry.senderFault)) again.push(entry.index);
        else result.failed.push(entry);
      }
      pending = again;
    }
  }

  private sqs(): SQSClient {
    if (!this.options.sqs) throw new PublisherConfigError('sqs', 'is not set: pass an SQSClient to send to queues');
    return this.options.sqs;
  }

  private sns(): SNSClient {
    if (!this.options.sns) throw new PublisherConfigError('sns', 'is not set: pass an SNSClient to publish to topics');
    return this.options.sns;
  }
}

async function sqsBatch(sqs: SQSClient, queueUrl: string, entries: Entry[]): Promise<CallResult> {
  const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries.map(({ Id, message }) => ({ Id, ...sqsFields(message) })) }));
  return { successful: out.Successful ?? [], failed: out.Failed ?? [] };
}

async function snsBatch(sns: SNSClient, topicArn: string, entries: Entry[]): Promise<CallResult> {
  const out = await sns.send(
    new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entries.map(({ Id, message }) => ({ Id, ...snsFields(message) })) }),
  );
  return { successful: out.Successful ?? [], failed: out.Failed ?? [] };
}

/** What SQS and SNS answer for a message they took: its id, and on FIFO its sequence number. */
function sent(out: { MessageId?: string; SequenceNumber?: string }): PublishResult {
  return { messageId: out.MessageId!, ...(out.SequenceNumber ? { sequenceNumber: out.SequenceNumber } : {}) };
}

function queueDestination(queueUrl: string): Destination {
  return { kind: 'queue', fifo: queueUrl.endsWith('.fifo'), maxBytes: MAX_MESSAGE_BYTES, messageMaxBytes: MAX_MESSAGE_BYTES - RESERVED_BYTES };
}

function topicDestination(topicArn: string): Destination {
  return { kind: 'topic', fifo: topicArn.endsWith('.fifo'), maxBytes: 262_144, messageMaxBytes: 262_144 };
}

function sqsFields(message: EncodedMessage) {
  return {
    MessageBody: message.body,
    ...(Object.keys(message.attributes).length > 0 ? { MessageAttributes: message.attributes } : {}),
    ...(message.delaySeconds === undefined ? {} : { DelaySeconds: message.delaySeconds }),
    ...(message.groupId === undefined ? {} : { MessageGroupId: message.groupId }),
    ...(message.deduplicationId === undefined ? {} : { MessageDeduplicationId: message.deduplicationId }),
    ...(message.traceHeader === undefined ? {} : { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: message.traceHeader } } }),
  };
}

function snsFields(message: EncodedMessage) {
  return {
    Message: message.body,
    ...(Object.keys(message.attributes).length > 0 ? { MessageAttributes: message.attributes } : {}),
    ...(message.groupId === undefined ? {} : { MessageGroupId: message.groupId }),
    ...(message.deduplicationId === undefined ? {} : { MessageDeduplicationId: message.deduplicationId }),
  };
}
