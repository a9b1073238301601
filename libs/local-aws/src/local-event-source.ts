import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { TemplateEventSource } from './event-sources.js';

/** One SQS message as Lambda hands it to a function: camelCase, binary values in base64. */
export interface LocalSqsRecord {
  /** SQS's id of the message: what `batchItemFailures` names. */
  messageId: string;
  /** This receive's handle. */
  receiptHandle: string;
  /** The body, as sent. */
  body: string;
  /** SQS's system attributes (`ApproximateReceiveCount`, `SentTimestamp`, FIFO's `MessageGroupId`…). */
  attributes: { ApproximateReceiveCount: string; SentTimestamp: string } & Record<string, string>;
  /** The message attributes, binary values in base64. */
  messageAttributes: Record<string, { dataType: string; stringValue?: string; binaryValue?: string; stringListValues: string[]; binaryListValues: string[] }>;
  /** The body's MD5, as SQS gives it. */
  md5OfBody: string;
  /** Always `aws:sqs`. */
  eventSource: 'aws:sqs';
  /** The queue's ARN. */
  eventSourceARN: string;
  /** The queue's region. */
  awsRegion: string;
}

/** The part of Lambda's context a queue handler reads. */
export interface LocalLambdaContext {
  /** `local-<n>`, n counting invocations from 1. */
  awsRequestId: string;
  /** The function's logical id. */
  functionName: string;
  /** What is left of the function's `Timeout` since the invocation began. */
  getRemainingTimeInMillis(): number;
}

/** A function's handler for SQS events: `sqsHandler` from `@requeue/lambda`, or any `SQSHandler`. */
export type LocalSqsHandler = (
  event: { Records: LocalSqsRecord[] },
  context: LocalLambdaContext,
) => Promise<{ batchItemFailures?: Array<{ itemIdentifier: string }> } | void>;

/** One invocation: the records it got, those that stay on the queue, and what it threw. */
export interface LocalInvocation {
  /** The message ids it was given. */
  records: string[];
  /** Reported in `batchItemFailures`, or all of them when the handler threw: these stay until their visibility timeout runs out. */
  failed: string[];
  /** What the handler threw, if it did. */
  error?: Error;
  /** From the call to its answer. */
  durationMs: number;
}

/** A running local event source; `stop` lets the invocation under way finish. */
export interface LocalEventSource {
  /** Every invocation so far, oldest first. */
  readonly invocations: readonly LocalInvocation[];
  /** Stops polling; resolves once the invocation under way has settled its records. */
  stop(): Promise<void>;
}

/** What to poll, what to invoke. */
export interface LocalEventSourceOptions {
  /** A client of the endpoint the queue is on. */
  sqs: SQSClient;
  /** The queue and the mapping's settings, as `templateEventSources` reads them. */
  source: Pick<TemplateEventSource, 'function' | 'queueUrl' | 'queueArn' | 'batchSize' | 'reportsBatchItemFailures' | 'timeoutSeconds'>;
  /** The function's handler. */
  handler: LocalSqsHandler;
  /** Each record's `awsRegion`. @default 'us-east-1' */
  region?: string;
  /** Told of each invocation once its records are settled. */
  onInvocation?: (invocation: LocalInvocation) => void;
}

/** An SDK message as Lambda's event source mapping hands it to a function. */
export function lambdaRecord(message: Message, queueArn: string, region = 'us-east-1'): LocalSqsRecord {
  const messageAttributes: LocalSqsRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: message.Attributes as LocalSqsRecord['attributes'],
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * What Lambda's SQS event source mapping does, against a local queue: receive a batch,
 * invoke the handler with it, delete the records it did not report failed (all of them
 * stay when it throws), and poll again. One invocation at a time, as a mapping with a
 * maximum concurrency of one.
 */
export function startLocalEventSource(options: LocalEventSourceOptions): LocalEventSource {
  const invocations: LocalInvocation[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const messages = await receive(options).catch(async () => {
        // The endpoint went away or refused: try again shortly, as Lambda's poller does.
        if (!stopped) await sleep(1000);
        return [];
      });
      if (messages.length === 0 || stopped) continue;
      const invocation = await invoke(options, messages, invocations.length);
      // A failed delete leaves the records to come back after their visibility timeout, as on Lambda.
      await deleteSucceeded(options, messages, invocation.failed).catch(() => undefined);
      invocations.push(invocation);
      options.onInvocation?.(invocation);
    }
  })();
  return {
    invocations,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function receive({ sqs, source }: LocalEventSourceOptions): Promise<Message[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: source.queueUrl,
      MaxNumberOfMessages: Math.min(10, source.batchSize),
      WaitTimeSeconds: 1,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}

async function invoke({ source, handler, region }: LocalEventSourceOptions, messages: Message[], count: number): Promise<LocalInvocation> {
  const started = Date.now();
  const records = messages.map((message) => message.MessageId ?? '');
  const context = {
    awsRequestId: `local-${count + 1}`,
    functionName: source.function,
    getRemainingTimeInMillis: () => Math.max(0, source.timeoutSeconds * 1000 - (Date.now() - started)),
  };
  try {
    const response = await handler({ Records: messages.map((message) => lambdaRecord(message, source.queueArn, region)) }, context);
    // Without ReportBatchItemFailures, Lambda ignores the answer: a return is success for all.
    const reported = source.reportsBatchItemFailures ? (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier) : [];
    return { records, failed: records.filter((id) => reported.includes(id)), durationMs: Date.now() - started };
  } catch (cause) {
    const error = cause instanceof Error ? cause : new Error(String(cause));
    return { records, failed: records, error, durationMs: Date.now() - started };
  }
}

async function deleteSucceeded({ sqs, source }: LocalEventSourceOptions, messages: Message[], failed: string[]): Promise<void> {
  const done = messages.filter((message) => !failed.includes(message.MessageId ?? ''));
  if (done.length === 0) return;
  const entries = done.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle }));
  await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: source.queueUrl, Entries: entries }));
}
