import { describe, expect, it } from 'vitest';
import type { Message } from '@aws-sdk/client-sqs';
import { Arrival } from '../message/arrival.js';
import { decodeMessage } from '../message/decode.js';
import { tenantKeyProblem, tenantReader as readerOf, type TenantKey } from './tenant-key.js';

/** The reader for `key`, given a message as it would arrive. */
const tenantReader = (key: TenantKey) => {
  const read = readerOf(key);
  return (message: Message) => read(new Arrival(message));
};

const envelope = (message: object, attributes: object = {}) =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: 'sns-1',
    TopicArn: 'arn:aws:sns:us-east-1:1:t',
    Message: JSON.stringify(message),
    MessageAttributes: attributes,
  });

describe('tenant keys', () => {
  it('reads the MessageGroupId, an attribute or a body path, inside an SNS envelope too', () => {
    expect(tenantReader('group')({ Attributes: { MessageGroupId: 'acme' } })).toBe('acme');
    const attribute = tenantReader('attribute.tenant');
    expect(attribute({ MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } } })).toBe('acme');
    expect(attribute({ Body: envelope({}, { tenant: { Type: 'String', Value: 'globex' } }) })).toBe('globex');
    const body = tenantReader('body.customer.id');
    expect(body({ Body: '{"customer":{"id":42}}' })).toBe('42');
    expect(body({ Body: envelope({ customer: { id: 'initech' } }) })).toBe('initech');
  });

  it('leaves its parse of the body for the decode: the handler gets the very object the tenant was read from', () => {
    const body = '{"customer":{"id":42}}';
    const arrival = new Arrival({ MessageId: 'm1', ReceiptHandle: 'r1', Body: body });
    expect(readerOf('body.customer.id')(arrival)).toBe('42');
    const decoded = decodeMessage(arrival.message, Date.now(), { arrival }).message.handlerMessage.body;
    expect(decoded).toBe(arrival.body(body));
    // Without the arrival, the decode parses the body again: equal, not the same object.
    const again = decodeMessage(arrival.message, Date.now()).message.handlerMessage.body;
    expect(again).toEqual(decoded);
    expect(again).not.toBe(decoded);
  });

  it('names no tenant for a message without one, or a body that is not JSON', () => {
    expect(tenantReader('group')({})).toBeUndefined();
    expect(tenantReader('body.customer')({ Body: 'not json' })).toBeUndefined();
    expect(tenantReader('body.customer')({ Body: '{"customer":""}' })).toBeUndefined();
    expect(tenantReader('body.customer')({ Body: '{"customer":{"id":1}}' })).toBeUndefined();
  });

  it('accepts the three forms only', () => {
    for (const key of ['group', 'attribute.tenant', 'attribute.x.y', 'body.a', 'body.a.b']) expect(tenantKeyProblem(key)).toBeUndefined();
    for (const key of ['customer', 'attribute.', 'body.', 'body.a..b', 42]) expect(tenantKeyProblem(key)).toMatch(/must be group/);
  });
});
