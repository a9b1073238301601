import { describe, expect, it } from 'vitest';
import { decodeMessage, parseBody } from './decode.js';

const NOW = Date.UTC(2026, 10, 22);
const envelope = (fields: Record<string, unknown>) =>
  JSON.stringify({ Type: 'Notification', MessageId: 'sns-1', TopicArn: 'arn:aws:sns:us-east-1:000000000000:t', ...fields });

describe('decodeMessage', () => {
  it('treats a message without x-retry as attempt 1, keyed by its own id', () => {
    const result = decodeMessage({ MessageId: 'm1', ReceiptHandle: 'r', Body: 'x', Attributes: { ApproximateReceiveCount: '1' } }, NOW);
    expect(result.ok).toBe(true);
    expect(result.message.state).toMatchObject({ attempt: 1, originalMessageId: 'm1' });
  });

  it('counts every receive of the same message as an attempt on top of x-retry', () => {
    const xRetry = JSON.stringify({ v: 1, attempt: 3, firstReceivedAt: NOW - 1000, originalMessageId: 'orig' });
    const result = decodeMessage(
      { MessageId: 'm2', Body: 'x', Attributes: { ApproximateReceiveCount: '2' }, MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: xRetry } } },
      NOW,
    );
    expect(result.message.state).toMatchObject({ attempt: 4, originalMessageId: 'orig' });
  });

  it('unwraps an SNS envelope, merging its attributes, and keeps the SQS body for copies', () => {
    const body = envelope({ Message: '{"a":1}', MessageAttributes: { tenant: { Type: 'String', Value: 'acme' } } });
    const result = decodeMessage({ MessageId: 'm', Body: body }, NOW);
    expect(result.ok).toBe(true);
    expect(result.message.payload).toBe('{"a":1}');
    expect(result.message.sqsBody).toBe(body);
    expect(result.message.payloadAttributes.tenant).toEqual({ DataType: 'String', StringValue: 'acme' });
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
    const ignored = decodeMessage({ MessageId: 'm', Body: 'x', MessageAttributes: { 'x-retry-policy': { DataType: 'String', StringValue: '{"maxAttempts":0}' } } }, NOW);
    expect(ignored.ok).toBe(true);
    expect(ignored.message.override).toBeUndefined();
    expect(ignored.message.overrideProblem).toMatch(/maxAttempts/);
  });
});
