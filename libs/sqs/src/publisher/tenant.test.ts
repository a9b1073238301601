import { PublishBatchCommand, type SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { PublishValidationError, RequeuePublisher } from './index.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:orders';

/** Records each call's input; every entry is accepted. */
function recorder() {
  const inputs: Array<Record<string, unknown>> = [];
  const send = async (command: SendMessageCommand | PublishBatchCommand) => {
    inputs.push(command.input as unknown as Record<string, unknown>);
    if (command instanceof PublishBatchCommand)
      return { Successful: command.input.PublishBatchRequestEntries!.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })) };
    return { MessageId: 'm' };
  };
  const client = { send } as unknown;
  return { inputs, sqs: client as SQSClient, sns: client as SNSClient };
}

describe('a message with a tenant (SQS fair queues)', () => {
  it('goes to a standard queue with the tenant as its MessageGroupId', async () => {
    const { inputs, sqs } = recorder();
    await new RequeuePublisher({ sqs }).send(QUEUE, { body: { id: 1 }, tenant: 'acme' });
    expect(inputs[0]).toMatchObject({ MessageGroupId: 'acme' });
  });

  it("also carries it in the publisher's tenant attribute, on a topic too", async () => {
    const { inputs, sns } = recorder();
    await new RequeuePublisher({ sns, tenantAttribute: 'tenant' }).publishBatch(TOPIC, [{ body: 'a', tenant: 'acme' }, { body: 'b' }]);
    const [withTenant, without] = (inputs[0] as { PublishBatchRequestEntries: Array<Record<string, unknown>> }).PublishBatchRequestEntries;
    expect(withTenant).toMatchObject({ MessageGroupId: 'acme', MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } } });
    expect(without).not.toHaveProperty('MessageGroupId', expect.anything());
  });

  it('on a FIFO queue orders by groupId and names the tenant in the attribute', async () => {
    const { inputs, sqs } = recorder();
    await new RequeuePublisher({ sqs, tenantAttribute: 'tenant' }).send(FIFO, { body: 'x', groupId: 'order-7', tenant: 'acme', deduplicationId: 'd' });
    expect(inputs[0]).toMatchObject({ MessageGroupId: 'order-7', MessageAttributes: { tenant: { StringValue: 'acme' } } });
    // Without a groupId the tenant is the group.
    await new RequeuePublisher({ sqs }).send(FIFO, { body: 'y', tenant: 'acme', deduplicationId: 'e' });
    expect(inputs[1]).toMatchObject({ MessageGroupId: 'acme' });
  });

  it('refuses, sending nothing, a tenant SQS would refuse or one that contradicts the message', async () => {
    const { inputs, sqs } = recorder();
    const publisher = new RequeuePublisher({ sqs, tenantAttribute: 'tenant' });
    const refusal = (message: Parameters<RequeuePublisher['send']>[1]) =>
      publisher.send(QUEUE, message).then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(await refusal({ body: 'x', tenant: 'has space' })).toMatchObject({ field: 'tenant', message: expect.stringMatching(/printable ASCII/) });
    expect(await refusal({ body: 'x', tenant: 'a'.repeat(129) })).toBeInstanceOf(PublishValidationError);
    expect(await refusal({ body: 'x', tenant: 'acme', groupId: 'other' })).toMatchObject({
      field: 'tenant',
      message: expect.stringMatching(/the MessageGroupId is the tenant/),
    });
    expect(await refusal({ body: 'x', tenant: 'acme', attributes: { tenant: 'globex' } })).toMatchObject({ field: 'attributes.tenant' });
    expect(inputs).toEqual([]);
  });
});
