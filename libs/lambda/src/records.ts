import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SqsEventMessageAttribute, SqsEventRecord } from './lambda-event.js';

/** A Lambda record as the SQS API's `ReceiveMessage` returns it: what the worker's path reads. */
export function messageOfRecord(record: SqsEventRecord): Message {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.attributes)) if (value !== undefined) attributes[name] = value;
  const messageAttributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {})) messageAttributes[name] = attributeValue(value);
  return { MessageId: record.messageId, ReceiptHandle: record.receiptHandle, Body: record.body, Attributes: attributes, MessageAttributes: messageAttributes };
}

function attributeValue(value: SqsEventMessageAttribute): MessageAttributeValue {
  return {
    DataType: value.dataType,
    ...(value.stringValue === undefined ? {} : { StringValue: value.stringValue }),
    ...(value.binaryValue === undefined ? {} : { BinaryValue: Buffer.from(value.binaryValue, 'base64') }),
  };
}

/**
 * The queue's URL from the record's `eventSourceARN`, on AWS's SQS endpoint for its
 * region: where the retry copies go when no `queueUrl` is given.
 */
export function queueUrlOfArn(arn: string): string {
  const match = /^arn:(aws[a-z-]*):sqs:([a-z0-9-]+):(\d{12}):([\w.-]+)$/.exec(arn);
  if (!match) throw new Error(`not an SQS queue ARN: ${JSON.stringify(arn)}`);
  const [, partition, region, account, name] = match;
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

/**
 * The queue a record came from: `configured` (`WORKER_QUEUE_URL`) when it names the same
 * queue, the account and name of the record's `eventSourceARN` (it may point at a VPC
 * endpoint or an emulator), else that ARN's URL on AWS's endpoint.
 */
export function queueUrlOfRecord(eventSourceArn: string, configured: string | undefined): string {
  const fromArn = queueUrlOfArn(eventSourceArn);
  const tail = (url: string) => new URL(url).pathname.split('/').filter(Boolean).slice(-2).join('/');
  return configured !== undefined && URL.canParse(configured) && tail(configured) === tail(fromArn) ? configured : fromArn;
}
