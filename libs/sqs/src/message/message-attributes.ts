import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTE, RETRY_POLICY_ATTRIBUTE, RETRY_STATE_ATTRIBUTE } from '@requeue/retry/engine';
export { RESERVED_BYTES } from '@requeue/retry/engine';

/** SQS allows at most 10 message attributes per message (SendMessage API reference). */
export const MAX_MESSAGE_ATTRIBUTES = 10;
/** SQS maximum message size, body and attributes together: 1 MiB. */
export const MAX_MESSAGE_BYTES = 1_048_576;

export type MessageAttributes = Record<string, MessageAttributeValue>;

/** The attributes requeue manages on a message. */
export const RESERVED_ATTRIBUTES: ReadonlySet<string> = new Set([RETRY_STATE_ATTRIBUTE, RETRY_POLICY_ATTRIBUTE, DEAD_LETTER_ATTRIBUTE]);

/**
 * The publisher's own attributes: everything except the ones requeue manages. Built with
 * `Object.fromEntries` (and copied with spreads, never assignment), which keep an
 * attribute named `__proto__` as an attribute rather than a prototype.
 */
export function userAttributes(all: MessageAttributes | undefined): MessageAttributes {
  if (all === undefined || hasNone(all)) return {};
  return Object.fromEntries(Object.entries(all).filter(([name]) => !RESERVED_ATTRIBUTES.has(name)));
}

/** No own property: most messages carry no attribute, and this spares them the entries' arrays. */
function hasNone(attributes: MessageAttributes): boolean {
  for (const name in attributes) if (Object.hasOwn(attributes, name)) return false;
  return true;
}

/** The first attribute the SDK delivered without a value (a `__proto__` it could not read), if any. */
export function unreadableAttribute(all: MessageAttributes | undefined): string | undefined {
  if (all === undefined) return undefined;
  for (const name in all) {
    const value: unknown = all[name];
    if (Object.hasOwn(all, name) && (typeof value !== 'object' || value === null)) return name;
  }
  return undefined;
}

export function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

/** Attribute values as the handler sees them: strings, with binary values in base64. */
export function attributeStrings(attributes: MessageAttributes): Record<string, string> {
  if (hasNone(attributes)) return {};
  return Object.fromEntries(
    Object.entries(attributes).flatMap(([name, value]): Array<[string, string]> => {
      if (value.StringValue !== undefined) return [[name, value.StringValue]];
      return value.BinaryValue === undefined ? [] : [[name, Buffer.from(value.BinaryValue).toString('base64')]];
    }),
  );
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

/** Whether a message with these attributes is within SQS's count limit and a queue's size limit (`MaximumMessageSize`). */
export function fitsInOneMessage(body: string, attributes: MessageAttributes, maxBytes: number = MAX_MESSAGE_BYTES): boolean {
  return Object.keys(attributes).length <= MAX_MESSAGE_ATTRIBUTES && messageBytes(body, attributes) <= maxBytes;
}

/** Which of SQS's limits left a message no room for an attribute requeue adds: its 10 attributes, or its size. */
export type NoRoom = 'attributes' | 'size';
