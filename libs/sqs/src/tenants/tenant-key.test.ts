import { describe, expect, it } from 'vitest';
import { tenantKeyProblem, tenantReader } from './tenant-key.js';

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
