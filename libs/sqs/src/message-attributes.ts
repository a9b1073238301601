import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTE, RETRY_POLICY_ATTRIBUTE, RETRY_STATE_ATTRIBUTE } from '@requeue/retry';

/** SQS allows at most 10 message attributes per message (SendMessage API reference). */
export const MAX_MESSAGE_ATTRIBUTES = 10;
/** SQS maximum message size, body and attributes together: 1 MiB. */
export const MAX_MESSAGE_BYTES = 1_048_576;

export type MessageAttributes = Record<string, MessageAttributeValue>;

/** The attributes requeue manages on a message. */
export const RESERVED_ATTRIBUTES: ReadonlySet<string> = new Set([RETRY_STATE_ATTRIBUTE, RETRY_POLICY_ATTRIBUTE, DEAD_LETTER_ATTRIBUTE]);

/** The publisher's own attributes: everything except the ones requeue manages. */
export function userAttributes(all: MessageAttributes | undefined): MessageAttributes {
  const user: MessageAttributes = {};
  for (const [name, value] of Object.entries(all ?? {})) if (!RESERVED_ATTRIBUTES.has(name)) user[name] = value;
  return user;
}

export function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

/** Attribute values as the handler sees them: strings, with binary values in base64. */
export function attributeStrings(attributes: MessageAttributes): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value.StringValue !== undefined) out[name] = value.StringValue;
    else if (value.BinaryValue !== undefined) out[name] = Buffer.from(value.BinaryValue).toString('base64');
  }
  return out;
}

/**
 * The size SQS counts against the 1 MiB limit: the body plus each attribute's name,
 * type and value (Amazon SQS message quotas).
 */
export function messageBytes(body: string, attributes: MessageAttributes): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    if (value.StringValue !== undefined) bytes += Buffer.byteLength(value.StringValue, 'utf8');
    if (value.BinaryValue !== undefined) bytes += value.BinaryValue.byteLength;
  }
  return bytes;
}

/** Whether a message with these attributes is within SQS's count and size limits. */
export function fitsInOneMessage(body: string, attributes: MessageAttributes): boolean {
  return Object.keys(attributes).length <= MAX_MESSAGE_ATTRIBUTES && messageBytes(body, attributes) <= MAX_MESSAGE_BYTES;
}
