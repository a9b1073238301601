import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';

/** The one attribute name a JavaScript object cannot hold by assignment. */
export const PROTO_ATTRIBUTE = '__proto__';

const MIDDLEWARE_NAME = 'requeueKeepsProtoAttribute';

/** The value of each received message's `__proto__` attribute, by message id, as the response carried it. */
type Recovered = Map<string, MessageAttributeValue>;

interface RawAttribute {
  DataType?: string;
  StringValue?: string;
  BinaryValue?: string;
}

/**
 * A publisher may name a message attribute `__proto__`. The SDK's deserializer keeps the
 * name but loses the value (it reads as undefined), so a retry or dead-letter copy would
 * drop it. This reads the value from the raw ReceiveMessage response, before the
 * deserializer, and puts it back on the deserialized message. Idempotent per client.
 */
export function keepProtoAttribute(client: SQSClient): void {
  // A stand-in without the SDK's middleware stack (a test double) has no deserializer to correct.
  if (!(client as Partial<SQSClient>).middlewareStack) return;
  const recovered = new WeakMap<object, Recovered>();
  // Inside the deserializer (deserialize step, low priority): the raw response, read once and handed on as bytes.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'ReceiveMessageCommand') return result;
      const response = result.response as { body?: unknown };
      const bytes = await bodyBytes(response.body);
      if (bytes === undefined) return result;
      response.body = bytes;
      const found = protoValues(bytes);
      if (found.size > 0) recovered.set(context, found);
      return result;
    },
    { step: 'deserialize', priority: 'low', name: `${MIDDLEWARE_NAME}Read`, override: true },
  );
  // Outside it (initialize step): the deserialized messages get the values back.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const found = recovered.get(context);
      if (!found) return result;
      const messages =
        (result.output as { Messages?: Array<{ MessageId?: string; MessageAttributes?: Record<string, MessageAttributeValue> }> }).Messages ?? [];
      for (const message of messages) {
        const value = found.get(message.MessageId ?? '');
        if (value && message.MessageAttributes)
          Object.defineProperty(message.MessageAttributes, PROTO_ATTRIBUTE, { value, enumerable: true, writable: true, configurable: true });
      }
      return result;
    },
    { step: 'initialize', name: `${MIDDLEWARE_NAME}Restore`, override: true },
  );
}

/** The body as bytes: the SDK's collector reads a Uint8Array as it is. Undefined for a body it cannot read here. */
async function bodyBytes(body: unknown): Promise<Uint8Array | undefined> {
  if (body instanceof Uint8Array) return body;
  if (body === null || typeof body !== 'object' || !(Symbol.asyncIterator in body)) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Every `__proto__` attribute of the response's messages (JSON.parse keeps the key as an own property). */
function protoValues(bytes: Uint8Array): Recovered {
  const found: Recovered = new Map();
  // Every receive passes here: the body is parsed a second time only when the name is in it.
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(`"${PROTO_ATTRIBUTE}"`)) return found;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return found;
  }
  const messages = (parsed as { Messages?: unknown }).Messages;
  if (!Array.isArray(messages)) return found;
  for (const message of messages as Array<{ MessageId?: unknown; MessageAttributes?: Record<string, RawAttribute> }>) {
    const attributes = message.MessageAttributes;
    if (typeof message.MessageId !== 'string' || !attributes || !Object.hasOwn(attributes, PROTO_ATTRIBUTE)) continue;
    const raw = attributes[PROTO_ATTRIBUTE] as RawAttribute;
    found.set(message.MessageId, {
      DataType: raw.DataType,
      ...(raw.StringValue === undefined ? {} : { StringValue: raw.StringValue }),
      ...(raw.BinaryValue === undefined ? {} : { BinaryValue: Buffer.from(raw.BinaryValue, 'base64') }),
    });
  }
  return found;
}
