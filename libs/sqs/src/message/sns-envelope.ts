import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { MessageAttributes } from './message-attributes.js';

/** What a queue message carries once any SNS envelope is taken off. */
export type Unwrapped =
  | { kind: 'raw'; payload: string; attributes: MessageAttributes }
  | { kind: 'sns'; payload: string; attributes: MessageAttributes; topicArn: string; snsMessageId: string }
  | { kind: 'invalid-envelope'; problem: string };

interface SnsAttribute {
  Type?: unknown;
  Value?: unknown;
}

/**
 * Non-raw SNS delivery wraps the published message in a JSON envelope
 * (`Type: "Notification"`, `TopicArn`, `Message`, `MessageAttributes`). A body is
 * treated as an envelope only when it has all of Type, TopicArn and MessageId, so a
 * user payload that happens to have a `Type` field passes through untouched. Raw
 * delivery is passed through unchanged.
 */
export function unwrapSnsEnvelope(body: string, sqsAttributes: MessageAttributes): Unwrapped {
  const raw: Unwrapped = { kind: 'raw', payload: body, attributes: sqsAttributes };
  if (!body.startsWith('{') || !body.includes('"Notification"')) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return raw;
  }
  if (typeof parsed !== 'object' || parsed === null) return raw;
  const envelope = parsed as Record<string, unknown>;
  if (envelope.Type !== 'Notification' || typeof envelope.TopicArn !== 'string' || typeof envelope.MessageId !== 'string') return raw;
  if (typeof envelope.Message !== 'string') {
    return { kind: 'invalid-envelope', problem: 'an SNS Notification envelope without a string Message' };
  }
  return {
    kind: 'sns',
    payload: envelope.Message,
    attributes: { ...snsAttributes(envelope.MessageAttributes), ...sqsAttributes },
    topicArn: envelope.TopicArn,
    snsMessageId: envelope.MessageId,
  };
}

/** SNS envelope attributes are `{ Type, Value }`; map them to SQS attribute values. */
function snsAttributes(value: unknown): MessageAttributes {
  const mapped: MessageAttributes = {};
  if (typeof value !== 'object' || value === null) return mapped;
  for (const [name, attribute] of Object.entries(value as Record<string, SnsAttribute>)) {
    if (typeof attribute?.Value !== 'string') continue;
    const type = typeof attribute.Type === 'string' ? attribute.Type : 'String';
    const converted: MessageAttributeValue =
      type === 'Binary' ? { DataType: 'Binary', BinaryValue: Buffer.from(attribute.Value, 'base64') } : { DataType: type, StringValue: attribute.Value };
    mapped[name] = converted;
  }
  return mapped;
}
