import type { Message } from '@aws-sdk/client-sqs';

/**
 * Bodies parsed before their message is decoded (a tenant key read from the body), kept
 * for the decode so each message's JSON is parsed once. Weak: a message given back
 * unstarted takes its entry with it.
 */
const parsedAhead = new WeakMap<Message, { payload: string; body: unknown }>();

/** The handler's `body`: parsed JSON when the payload is JSON, else the string. */
export function parseBody(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

/** Parses a message's payload ahead of its decode, and keeps the result for it. */
export function parseBodyAhead(message: Message, payload: string): unknown {
  const body = parseBody(payload);
  parsedAhead.set(message, { payload, body });
  return body;
}

/** The body parsed ahead for this payload, else parsed now. */
export function takeParsedBody(message: Message, payload: string): unknown {
  const ahead = parsedAhead.get(message);
  if (ahead === undefined || ahead.payload !== payload) return parseBody(payload);
  parsedAhead.delete(message);
  return ahead.body;
}
