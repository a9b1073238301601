import { InvalidRetryStateError, type PolicyOverrideInput } from '@requeue/retry';
import { outOfRange, parsePolicyOverride, RETRY_POLICY_ATTRIBUTE } from '@requeue/retry/engine';
import { MAX_MESSAGE_ATTRIBUTES, messageBytes, RESERVED_ATTRIBUTES, type MessageAttributes } from '../message/message-attributes.js';
import { tenantFields } from './tenant.js';

/** A message to send to a queue or publish to a topic. */
export interface OutgoingMessage<Body = unknown> {
  /** Sent as is when a string, else as JSON. */
  body: Body;
  /** Your attributes: a string, a number (`Number`) or bytes (`Binary`) each. */
  attributes?: Readonly<Record<string, string | number | Uint8Array>>;
  /** This message's own retry limits and backoff (`x-retry-policy`), checked before sending. */
  retryPolicy?: PolicyOverrideInput;
  /** Required on FIFO queues and topics: order holds within a group. @default `tenant` */
  groupId?: string;
  /**
   * Whose message this is, for SQS fair queues: sent as the MessageGroupId on a standard
   * queue or topic, and in the publisher's `tenantAttribute` when it has one.
   */
  tenant?: string;
  /** FIFO: a resend with the same id within 5 minutes is dropped. @default content-based, when the queue or topic has it on */
  deduplicationId?: string;
  /** Standard queues only: hidden this long before the first delivery, 0-900 s. */
  delaySeconds?: number;
}

/** Where a message goes, and the limits that apply there. */
export interface Destination {
  kind: 'queue' | 'topic';
  fifo: boolean;
  /** SQS takes 1 MiB per batch; SNS 256 KiB. */
  maxBytes: number;
  /**
   * The most one message may have: to a queue, SQS's 1 MiB less `RESERVED_BYTES`, the room
   * a retry's state and a dead letter's reason take (and `RetryingQueue`'s limit).
   */
  messageMaxBytes: number;
}

/** An outgoing message checked and encoded, ready for either API. */
export interface EncodedMessage {
  body: string;
  attributes: MessageAttributes;
  bytes: number;
  groupId: string | undefined;
  deduplicationId: string | undefined;
  delaySeconds: number | undefined;
  /** To a queue: the `AWSTraceHeader` system attribute, set by the publish span. */
  traceHeader?: string;
}

/**
 * Room for requeue's own attribute: a retry copy carries `x-retry` beside the publisher's,
 * within SQS's 10, so a message may bring at most 9 (x-retry-policy counts among them).
 * One with more is still retried, but by visibility timeout instead of by copy.
 */
export const MAX_PUBLISHER_ATTRIBUTES = MAX_MESSAGE_ATTRIBUTES - 1;
const NAME = /^(?!aws\.|amazon\.)(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9_.-]{0,255}$/i;

/** A message that cannot be sent as given: nothing of its batch was sent. Says which and why. */
export class PublishValidationError extends Error {
  constructor(
    /** The message's index in the list given. */
    readonly index: number,
    /** The field at fault, e.g. `attributes.x-retry-policy`. */
    readonly field: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`message ${index}: ${field}: ${problem}`, options);
    this.name = 'PublishValidationError';
  }
}

/** What every message of a publisher is checked against: see `PublisherOptions`. */
export interface EncodingRules {
  strategyNames?: readonly string[];
  tenantAttribute?: string;
}

/** Checks one message against the destination's rules and encodes it; throws PublishValidationError. */
export function encodeMessage(message: OutgoingMessage, index: number, to: Destination, rules: EncodingRules): EncodedMessage {
  const fail = (field: string, problem: string, cause?: unknown): never => {
    throw new PublishValidationError(index, field, problem, { cause });
  };
  const body = typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
  if (body === undefined) fail('body', 'is not JSON-serializable (undefined or a function)');
  if (body.length === 0) fail('body', 'is empty; SQS and SNS need at least one character');
  const tenant = tenantFields(message, to.fifo, rules.tenantAttribute, fail);
  const attributes = encodeAttributes({ ...message, attributes: tenant.attributes }, fail, rules.strategyNames);
  if (to.fifo && !tenant.groupId) fail('groupId', `is required: the ${to.kind} is FIFO`);
  if (message.delaySeconds !== undefined) {
    if (to.kind === 'topic' || to.fifo) fail('delaySeconds', `applies to standard queues only, not to a ${to.fifo ? 'FIFO ' : ''}${to.kind}`);
    const delayProblem = outOfRange(message.delaySeconds, { min: 0, max: 900 });
    if (delayProblem) fail('delaySeconds', delayProblem);
  }
  const bytes = messageBytes(body, attributes);
  if (bytes > to.messageMaxBytes) {
    const room =
      to.kind === 'queue' ? ` (SQS's ${to.maxBytes}, less ${to.maxBytes - to.messageMaxBytes} kept for a retry's state and a dead letter's reason)` : '';
    fail('body', `with its attributes is ${bytes} bytes, over the ${to.messageMaxBytes} a ${to.kind} message may have${room}`);
  }
  return { body, attributes, bytes, groupId: tenant.groupId, deduplicationId: message.deduplicationId, delaySeconds: message.delaySeconds };
}

function encodeAttributes(
  message: OutgoingMessage,
  fail: (field: string, problem: string, cause?: unknown) => never,
  strategyNames: readonly string[] | undefined,
): MessageAttributes {
  const attributes: MessageAttributes = {};
  for (const [name, value] of Object.entries(message.attributes ?? {})) {
    if (RESERVED_ATTRIBUTES.has(name))
      fail(`attributes.${name}`, `is requeue's own attribute${name === RETRY_POLICY_ATTRIBUTE ? '; set retryPolicy instead' : ''}`);
    if (!NAME.test(name))
      fail(
        `attributes.${name}`,
        'is not a valid attribute name: up to 256 of letters, digits, _ - and . (not at the start, not doubled), not starting with AWS. or Amazon.',
      );
    if (typeof value === 'string') attributes[name] = { DataType: 'String', StringValue: value };
    else if (typeof value === 'number' && Number.isFinite(value)) attributes[name] = { DataType: 'Number', StringValue: String(value) };
    else if (value instanceof Uint8Array) attributes[name] = { DataType: 'Binary', BinaryValue: value };
    else fail(`attributes.${name}`, 'must be a string, a finite number or a Uint8Array');
  }
  if (message.retryPolicy !== undefined)
    attributes[RETRY_POLICY_ATTRIBUTE] = { DataType: 'String', StringValue: checkedOverride(message.retryPolicy, fail, strategyNames) };
  const count = Object.keys(attributes).length;
  if (count > MAX_PUBLISHER_ATTRIBUTES) {
    fail(
      'attributes',
      `${count} attributes (x-retry-policy included) is over the ${MAX_PUBLISHER_ATTRIBUTES} a message may bring: SQS allows 10 and a retry adds x-retry`,
    );
  }
  return attributes;
}

function checkedOverride(
  override: PolicyOverrideInput,
  fail: (field: string, problem: string, cause?: unknown) => never,
  strategyNames: readonly string[] | undefined,
): string {
  const text = JSON.stringify(override);
  const backoff = override.backoff;
  // Without the consumer's strategy names, a named custom strategy is taken on trust.
  const names = strategyNames ?? (backoff?.type === 'custom' && 'name' in backoff ? [backoff.name] : []);
  try {
    parsePolicyOverride(text, names);
    return text;
  } catch (cause) {
    if (cause instanceof InvalidRetryStateError) return fail('retryPolicy', cause.problem, cause);
    throw cause;
  }
}
