/** A message attribute as Lambda delivers it: binary values base64-encoded. */
export interface SqsEventMessageAttribute {
  /** `String`, `Number` or `Binary`, with an optional `.suffix`. */
  dataType: string;
  /** For `String` and `Number`. */
  stringValue?: string | undefined;
  /** Base64. */
  binaryValue?: string | undefined;
  /** Reserved by SQS; always empty. */
  stringListValues?: string[] | undefined;
  /** Reserved by SQS; always empty. */
  binaryListValues?: string[] | undefined;
}

/**
 * The system attributes Lambda delivers with each message, as strings. Optional fields take
 * an explicit `undefined`, as `@types/aws-lambda` declares them, so that a handler typed as
 * its `SQSHandler` compiles under `exactOptionalPropertyTypes`.
 */
export interface SqsEventRecordAttributes {
  /** How many times it was received, this time included. */
  ApproximateReceiveCount: string;
  /** Epoch ms at which it was sent. */
  SentTimestamp: string;
  /** Epoch ms of its first receive. */
  ApproximateFirstReceiveTimestamp?: string | undefined;
  /** Who sent it (an account or role id). */
  SenderId?: string | undefined;
  /** FIFO queues. */
  MessageGroupId?: string | undefined;
  /** FIFO queues. */
  MessageDeduplicationId?: string | undefined;
  /** FIFO queues: the message's place in its group. */
  SequenceNumber?: string | undefined;
  /** The X-Ray trace header, when the message carries one. */
  AWSTraceHeader?: string | undefined;
}

/** One SQS message as Lambda's event source mapping delivers it (the same shape as `SQSRecord` in `@types/aws-lambda`). */
export interface SqsEventRecord {
  /** SQS's id of this message: what `batchItemFailures` names. */
  messageId: string;
  /** This receive's handle: what changes its visibility. */
  receiptHandle: string;
  /** The body, as sent. */
  body: string;
  /** SQS's system attributes. */
  attributes: SqsEventRecordAttributes;
  /** The message attributes the publisher and requeue set (`x-retry`, `x-dead-letter`, …). */
  messageAttributes: Record<string, SqsEventMessageAttribute>;
  /** `arn:aws:sqs:<region>:<account>:<queue name>`. */
  eventSourceARN: string;
  /** `aws:sqs`. */
  eventSource?: string | undefined;
  /** The queue's region. */
  awsRegion?: string | undefined;
  /** The MD5 of the body, as SQS computed it. */
  md5OfBody?: string | undefined;
}

/** What Lambda passes an SQS-triggered function. */
export interface SqsEvent {
  /** The batch: up to the mapping's batch size (10,000 on a standard queue, 10 on FIFO). */
  Records: SqsEventRecord[];
}

/** A partial batch response: the messages that stay in the queue (the event source mapping needs `ReportBatchItemFailures`). */
export interface SqsBatchResponse {
  /** The records that stay in the queue; every other record of the batch is deleted. */
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** The part of Lambda's context the handler reads. */
export interface LambdaContext {
  /** How long the invocation may still run. */
  getRemainingTimeInMillis(): number;
  /** This invocation's id. */
  awsRequestId?: string | undefined;
  /** The function's name. */
  functionName?: string | undefined;
}
