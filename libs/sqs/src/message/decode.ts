import type { Message } from '@aws-sdk/client-sqs';
import { parseBody, type Arrival } from './arrival.js';
import {
  freshRetryState,
  parsePolicyOverride,
  parseRetryState,
  RETRY_POLICY_ATTRIBUTE,
  RETRY_STATE_ATTRIBUTE,
  type PolicyOverride,
  type RetryState,
  type RetryStateSigner,
} from '@requeue/retry/engine';
import type { SpanContext } from '@opentelemetry/api';
import { attributeStrings, unreadableAttribute, userAttributes, type MessageAttributes } from './message-attributes.js';
import { messageDigest } from './message-digest.js';
import { unwrapSnsEnvelope } from './sns-envelope.js';
import { incomingTraceContext } from '../tracing/carry.js';
import type { ProcessTrace } from '../tracing/process-trace.js';
import type { WorkerMessage } from './worker-message.js';

/** A received message, decoded: what the handler sees and what a retry must carry. */
export interface DecodedMessage {
  messageId: string;
  receiptHandle: string;
  /** The SQS body, byte for byte: copies and dead letters carry exactly this. */
  sqsBody: string;
  /** The publisher's SQS attributes, preserved on every copy. */
  sqsUserAttributes: MessageAttributes;
  /**
   * What this message's `x-retry` MAC is bound to (`messageDigest`): the same on every copy
   * of it. Computed on the first call: a first delivery that succeeds never needs it.
   */
  digest(): string;
  receiveCount: number;
  /** When this delivery was received: SQS keeps a message hidden at most 12 hours from its receive. */
  receivedAt: number;
  groupId: string | undefined;
  /** Retry state with `attempt` counting this delivery. */
  state: RetryState;
  override: PolicyOverride | undefined;
  /** Set when `x-retry-policy` was present but invalid, and so ignored. */
  overrideProblem: string | undefined;
  /** The published payload (inside any SNS envelope). */
  payload: string;
  /** Attributes as published: SNS envelope attributes merged with the SQS ones. */
  payloadAttributes: MessageAttributes;
  /** What the handler is given (its abort signal aside), built here once. */
  handlerMessage: Omit<WorkerMessage, 'signal'>;
  /** The trace context the message brought (see `incomingTraceContext`), when tracing is on. */
  incomingTrace: SpanContext | undefined;
  /** This delivery's process span, once processing has started it. */
  trace?: ProcessTrace;
  /** The message as it arrived, with its running slot; undefined when decoded without one. */
  arrival: Arrival | undefined;
}

export interface DecodeContext {
  unusedReceives?: number;
  parseOverride?: (raw: string) => PolicyOverride;
  /** Reads the incoming trace context. @default true */
  traced?: boolean;
  /** Verifies `x-retry`'s MAC. @default none: no message's claimed identity is trusted */
  signer?: RetryStateSigner;
  /** The message as it arrived: its envelope and body are read there, once, rather than again here. */
  arrival?: Arrival;
}

export type DecodeResult =
  | { ok: true; message: DecodedMessage }
  | { ok: false; message: DecodedMessage; reason: 'invalid-retry-state' | 'non-retryable'; errorType: string; error: string };

/**
 * Decodes retry state and envelope. Every received message decodes to something the
 * worker can act on: garbage never throws here, it becomes a dead-letter decision.
 * `unusedReceives` are earlier receives of this message that were not attempts (FIFO
 * hand-backs this worker remembers); `parseOverride` reads `x-retry-policy` with the
 * policy's own custom strategy names.
 */
export function decodeMessage(message: Message, now: number, context: DecodeContext = {}): DecodeResult {
  const { unusedReceives = 0, parseOverride = parsePolicyOverride, traced = true, signer, arrival } = context;
  const messageId = message.MessageId ?? '';
  // An attribute the SDK delivered without a value cannot be carried: the message is
  // dead-lettered with the rest, and says which (see keepProtoAttribute).
  const unreadable = unreadableAttribute(message.MessageAttributes as MessageAttributes | undefined);
  const attributes = (
    unreadable === undefined
      ? (message.MessageAttributes ?? {})
      : Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).filter(([name]) => name !== unreadable))
  ) as MessageAttributes;
  const receiveCount = positiveInt(message.Attributes?.ApproximateReceiveCount) ?? 1;
  const firstReceivedAt = positiveInt(message.Attributes?.ApproximateFirstReceiveTimestamp) ?? now;
  const sqsBody = message.Body ?? '';

  const sqsUserAttributes = userAttributes(attributes);
  // A SHA-256 of the body: needed to verify a state the message carries, or to sign one for
  // a copy or a dead letter, so computed then, never for a first delivery that succeeds.
  let digest: string | undefined;
  const digestOf = () => (digest ??= messageDigest(sqsBody, sqsUserAttributes));
  const retry = readAttribute(attributes[RETRY_STATE_ATTRIBUTE]?.StringValue, (raw) => parseRetryState(raw, now));
  const recorded = retry.value
    ? withTrustedIdentity(retry.value, messageId, signer?.verifies(retry.value, digestOf()) === true)
    : freshRetryState(messageId, Math.min(firstReceivedAt, now));
  const { value: override, problem: overrideProblem } = readAttribute(attributes[RETRY_POLICY_ATTRIBUTE]?.StringValue, parseOverride);

  // The arrival's unwrap saw every attribute: it stands unless one was dropped as unreadable.
  const unwrapped = arrival && unreadable === undefined ? arrival.unwrapped : unwrapSnsEnvelope(sqsBody, attributes);
  const payload = unwrapped.kind === 'invalid-envelope' ? sqsBody : unwrapped.payload;
  const published = unwrapped.kind === 'invalid-envelope' ? attributes : unwrapped.attributes;
  const payloadAttributes = published === attributes ? sqsUserAttributes : userAttributes(published);
  // Every receive of this SQS message is one attempt, on top of what earlier copies
  // recorded: a visibility-transport retry and a crash redelivery both count.
  const unrecorded = Math.max(0, receiveCount - 1 - unusedReceives);
  // Copied only when the receives add to it: most messages arrive on their first receive.
  const state: RetryState = unrecorded === 0 ? recorded : { ...recorded, attempt: recorded.attempt + unrecorded };
  const decoded: DecodedMessage = {
    messageId,
    receiptHandle: message.ReceiptHandle ?? '',
    sqsBody,
    sqsUserAttributes,
    // A function, not a getter: an object literal with an accessor is built slowly, once per message.
    digest: digestOf,
    receiveCount,
    receivedAt: now,
    groupId: message.Attributes?.MessageGroupId,
    state,
    override,
    overrideProblem,
    payload,
    payloadAttributes,
    handlerMessage: {
      body: arrival ? arrival.body(payload) : parseBody(payload),
      rawBody: payload,
      attributes: attributeStrings(payloadAttributes),
      attempt: state.attempt,
      firstReceivedAt: state.firstReceivedAt,
      sentAt: positiveInt(message.Attributes?.SentTimestamp) ?? now,
      idempotencyKey: state.originalMessageId,
      messageId,
      receiveCount,
      ...(unwrapped.kind === 'sns' ? { snsMessageId: unwrapped.snsMessageId } : {}),
    },
    incomingTrace: traced ? incomingTraceContext(sqsUserAttributes, message.Attributes?.AWSTraceHeader, payloadAttributes) : undefined,
    arrival,
  };
  if (retry.problem !== undefined) {
    return { ok: false, message: decoded, reason: 'invalid-retry-state', errorType: 'INVALID_RETRY_STATE', error: retry.problem };
  }
  if (unwrapped.kind === 'invalid-envelope') {
    return { ok: false, message: decoded, reason: 'non-retryable', errorType: 'INVALID_ENVELOPE', error: unwrapped.problem };
  }
  if (unreadable !== undefined) {
    const error =
      `message attribute ${JSON.stringify(unreadable)} arrived without a value the AWS SDK could read, ` +
      `so no copy could carry it; this dead letter carries the body and every other attribute`;
    return { ok: false, message: decoded, reason: 'non-retryable', errorType: 'UNREADABLE_ATTRIBUTE', error };
  }
  return { ok: true, message: decoded };
}

/**
 * `x-retry` as far as it can be trusted. Its budget (attempt, first receive, wait) only
 * ever shortens or delays this message, so it counts whoever wrote it. Its identity
 * (`originalMessageId`, the idempotency key) would let a publisher claim another
 * message's, so it counts only under a MAC that verifies for this very message; otherwise
 * the message is itself. The MAC is dropped either way: a copy is signed anew.
 */
function withTrustedIdentity(claimed: RetryState, messageId: string, verified: boolean): RetryState {
  const { mac: _mac, ...state } = claimed;
  return verified ? state : { ...state, originalMessageId: messageId };
}

/** An optional attribute, parsed: its value, or why it could not be read; neither when it is absent. */
/** What an absent attribute reads as: shared, since most messages carry neither of requeue's. */
const ABSENT: { value?: never; problem?: never } = Object.freeze({});

function readAttribute<T>(raw: string | undefined, parse: (raw: string) => T): { value?: T; problem?: string } {
  if (raw === undefined) return ABSENT;
  try {
    return { value: parse(raw) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
}
