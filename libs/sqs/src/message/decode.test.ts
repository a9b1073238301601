import { createHmac } from 'node:crypto';
import { encodeRetryState, RetryStateSigner } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './decode.js';
import { messageDigest } from './message-digest.js';
import { parseBody } from './arrival.js';

const signer = new RetryStateSigner(['k'.repeat(32)]);
/** What `withRetry`'s messages are: body `x`, no attribute of the publisher's. */
const BOUND = messageDigest('x', {});
const withRetry = (MessageId: string, xRetry: string, receiveCount = '2') => ({
  MessageId,
  Body: 'x',
  Attributes: { ApproximateReceiveCount: receiveCount },
  MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: xRetry } },
});

const NOW = Date.UTC(2026, 10, 22);
const envelope = (fields: Record<string, unknown>) =>
  JSON.stringify({ Type: 'Notification', MessageId: 'sns-1', TopicArn: 'arn:aws:sns:us-east-1:000000000000:t', ...fields });

describe('decodeMessage', () => {
  it('treats a message without x-retry as attempt 1, keyed by its own id', () => {
    const result = decodeMessage({ MessageId: 'm1', ReceiptHandle: 'r', Body: 'x', Attributes: { ApproximateReceiveCount: '1' } }, NOW);
    expect(result.ok).toBe(true);
    expect(result.message.state).toMatchObject({ attempt: 1, originalMessageId: 'm1' });
  });

  it('counts every receive of the same message as an attempt on top of x-retry, and keeps a signed identity', () => {
    const xRetry = signer.sign({ v: 1, attempt: 3, firstReceivedAt: NOW - 1000, originalMessageId: 'orig' }, BOUND);
    const result = decodeMessage(withRetry('m2', xRetry), NOW, { signer });
    expect(result.message.state).toEqual({ v: 1, attempt: 4, firstReceivedAt: NOW - 1000, originalMessageId: 'orig' });
    expect(result.message.handlerMessage.idempotencyKey).toBe('orig');
  });

  it('never takes its identity from an x-retry a publisher wrote, unsigned or with a MAC of another key', () => {
    const state = { v: 1 as const, attempt: 3, firstReceivedAt: NOW - 1000, originalMessageId: 'victim' };
    const otherKey = new RetryStateSigner(['o'.repeat(32)]).sign(state, BOUND);
    const altered = JSON.stringify({ ...JSON.parse(signer.sign(state, BOUND)), originalMessageId: 'victim-2' });
    // A genuine state, signed for another body: copied onto this one, it does not verify.
    const moved = signer.sign(state, messageDigest('the victim body', {}));
    for (const forged of [JSON.stringify(state), otherKey, altered, moved]) {
      const result = decodeMessage(withRetry('attacker', forged), NOW, { signer });
      expect(result.ok).toBe(true);
      // Its own budget counts (it can only shorten its own life); its identity is its own.
      expect(result.message.state).toMatchObject({ attempt: 4, originalMessageId: 'attacker' });
      expect(result.message.handlerMessage.idempotencyKey).toBe('attacker');
    }
  });

  it('gives a state signed before MACs were bound to the message its own identity, and keeps its attempts', () => {
    // The earlier MAC covered the state alone: HMAC-SHA256 over its encoding.
    const state = { v: 1 as const, attempt: 2, firstReceivedAt: NOW - 1000, originalMessageId: 'orig' };
    const legacyMac = createHmac('sha256', 'k'.repeat(32)).update(encodeRetryState(state)).digest('base64url');
    const result = decodeMessage(withRetry('m4', encodeRetryState({ ...state, mac: legacyMac })), NOW, { signer });
    expect(result.ok).toBe(true);
    expect(result.message.state).toMatchObject({ attempt: 3, originalMessageId: 'm4' });
  });

  it('trusts a key being rotated out: the previous key still verifies', () => {
    const old = new RetryStateSigner(['o'.repeat(32)]);
    const rotated = new RetryStateSigner(['n'.repeat(32), 'o'.repeat(32)]);
    const xRetry = old.sign({ v: 1, attempt: 2, firstReceivedAt: NOW - 1000, originalMessageId: 'orig' }, BOUND);
    expect(decodeMessage(withRetry('m3', xRetry), NOW, { signer: rotated }).message.state.originalMessageId).toBe('orig');
  });

  it('unwraps an SNS envelope, merging its attributes, and keeps the SQS body for copies', () => {
    const body = envelope({ Message: '{"a":1}', MessageAttributes: { tenant: { Type: 'String', Value: 'acme' } } });
    const result = decodeMessage({ MessageId: 'm', Body: body }, NOW);
    expect(result.ok).toBe(true);
    expect(result.message.payload).toBe('{"a":1}');
    expect(result.message.sqsBody).toBe(body);
    expect(result.message.payloadAttributes.tenant).toEqual({ DataType: 'String', StringValue: 'acme' });
    // The id the publisher got from SNS, for the handler and the logs; none for a raw body.
    expect(result.message.handlerMessage.snsMessageId).toBe('sns-1');
    expect(decodeMessage({ MessageId: 'm', Body: '{"a":1}' }, NOW).message.handlerMessage).not.toHaveProperty('snsMessageId');
  });

  it('passes an envelope with a broken inner Message through as a string payload', () => {
    const result = decodeMessage({ MessageId: 'm', Body: envelope({ Message: '{not json' }) }, NOW);
    expect(result.ok).toBe(true);
    expect(parseBody(result.message.payload)).toBe('{not json');
  });

  it('dead-letters an envelope claiming Notification without a Message', () => {
    expect(decodeMessage({ MessageId: 'm', Body: envelope({}) }, NOW)).toMatchObject({ ok: false, reason: 'non-retryable', errorType: 'INVALID_ENVELOPE' });
  });

  it('leaves a user payload that merely has Type: Notification alone', () => {
    const result = decodeMessage({ MessageId: 'm', Body: '{"Type":"Notification","text":"hi"}' }, NOW);
    expect(result.ok && result.message.payload).toBe('{"Type":"Notification","text":"hi"}');
  });

  it('flags an invalid x-retry and remembers an invalid x-retry-policy as ignored', () => {
    expect(decodeMessage({ MessageId: 'm', Body: 'x', MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: 'NaN' } } }, NOW)).toMatchObject({
      ok: false,
      reason: 'invalid-retry-state',
    });
    const ignored = decodeMessage(
      { MessageId: 'm', Body: 'x', MessageAttributes: { 'x-retry-policy': { DataType: 'String', StringValue: '{"maxAttempts":0}' } } },
      NOW,
    );
    expect(ignored.ok).toBe(true);
    expect(ignored.message.override).toBeUndefined();
    expect(ignored.message.overrideProblem).toMatch(/maxAttempts/);
  });

  it('dead-letters a message with an attribute the SDK delivered without a value, keeping the others, never crashing', () => {
    // What the SDK's deserializer makes of an attribute named __proto__ when nothing restores it.
    const attributes = Object.assign(Object.create(null) as Record<string, unknown>, { tenant: { DataType: 'String', StringValue: 'acme' } });
    Object.defineProperty(attributes, '__proto__', { value: undefined, enumerable: true });
    const result = decodeMessage({ MessageId: 'm', Body: 'x', MessageAttributes: attributes as never }, NOW);
    expect(result).toMatchObject({ ok: false, reason: 'non-retryable', errorType: 'UNREADABLE_ATTRIBUTE' });
    expect(result.message.sqsUserAttributes).toEqual({ tenant: { DataType: 'String', StringValue: 'acme' } });
  });
});
