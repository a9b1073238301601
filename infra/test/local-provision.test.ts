import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalProvisioningError, provisionFromTemplate, startLocalAws, type CloudFormationTemplate, type LocalAws } from '@requeue/local-aws';
import { requeueStackTemplate } from '../lib/requeue-app.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const running: LocalAws[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((local) => local.stop()));
});

async function start(template: CloudFormationTemplate) {
  const local = await startLocalAws({ port: 0, template });
  running.push(local);
  const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const sns = new SNSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const attributes = async (queueUrl: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {};
  return { local, sqs, sns, attributes };
}

let deployed: CloudFormationTemplate;
beforeAll(() => {
  deployed = requeueStackTemplate();
});

describe('provisioning the emulator from the synthesized stack', () => {
  it('creates the queues with the template attributes, and the outputs the worker needs', async () => {
    const { local, attributes } = await start(deployed);
    const { QueueUrl, DLQUrl, TopicArn } = local.stack.outputs;
    expect(QueueUrl).toMatch(/\/Requeue-jobs$/);
    expect(DLQUrl).toMatch(/\/Requeue-jobs-dlq$/);
    expect(TopicArn).toMatch(/^arn:aws:sns:us-east-1:000000000000:/);
    const queue = await attributes(QueueUrl!);
    const dlq = await attributes(DLQUrl!);
    expect(queue).toMatchObject({ VisibilityTimeout: '60', MessageRetentionPeriod: '1209600', ReceiveMessageWaitTimeSeconds: '20' });
    expect(JSON.parse(queue.RedrivePolicy!)).toEqual({ deadLetterTargetArn: dlq.QueueArn, maxReceiveCount: 5 });
    expect(JSON.parse(dlq.RedriveAllowPolicy!)).toEqual({ redrivePermission: 'byQueue', sourceQueueArns: [queue.QueueArn] });
    // The dashboard, alarms and the service have no local counterpart; they are reported, not faked.
    expect(local.stack.outputs.DashboardUrl).toBeUndefined();
    expect(local.stack.notProvisioned).toMatchObject({ 'AWS::ECS::Service': 1, 'AWS::CloudWatch::Dashboard': 1 });
  });

  it('delivers what is published to the topic to the queue, raw', async () => {
    const { local, sqs, sns } = await start(deployed);
    await sns.send(new PublishCommand({ TopicArn: local.stack.outputs.TopicArn, Message: '{"id":"raw"}' }));
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: local.stack.outputs.QueueUrl, WaitTimeSeconds: 5 }));
    expect(received.Messages?.map((m) => m.Body)).toEqual(['{"id":"raw"}']);
  });

  it('follows a prop change in the stack: visibility, maxReceiveCount, filter policy', async () => {
    const changed = requeueStackTemplate({
      queue: {
        visibilityTimeout: Duration.seconds(45),
        maxReceiveCount: 3,
        filterPolicy: { operation: sns.SubscriptionFilter.stringFilter({ allowlist: ['create'] }) },
      },
    });
    const { local, sqs, sns: snsClient, attributes } = await start(changed);
    const queue = await attributes(local.stack.outputs.QueueUrl!);
    expect(queue.VisibilityTimeout).toBe('45');
    expect(JSON.parse(queue.RedrivePolicy!).maxReceiveCount).toBe(3);

    const publish = (operation: string) =>
      snsClient.send(
        new PublishCommand({
          TopicArn: local.stack.outputs.TopicArn,
          Message: operation,
          MessageAttributes: { operation: { DataType: 'String', StringValue: operation } },
        }),
      );
    await publish('delete');
    await publish('create');
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: local.stack.outputs.QueueUrl, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => m.Body)).toEqual(['create']);
  });

  it('converges a running emulator to a changed template, as a deploy would', async () => {
    const first = await start(deployed);
    const queueUrl = first.local.stack.outputs.QueueUrl!;
    const again = await provisionFromTemplate({
      sqs: first.sqs,
      sns: first.sns,
      template: requeueStackTemplate({ queue: { visibilityTimeout: Duration.seconds(90) } }),
    });
    expect(again.outputs.QueueUrl).toBe(queueUrl);
    expect((await first.attributes(queueUrl)).VisibilityTimeout).toBe('90');
  });

  it('refuses a queue property it cannot apply, rather than run with a different configuration', async () => {
    const template: CloudFormationTemplate = { Resources: { Odd: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'odd', SomethingNew: 1 } } } };
    const local = await startLocalAws({ port: 0, template: { Resources: {} } });
    running.push(local);
    const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials });
    const snsClient = new SNSClient({ endpoint: local.endpoint, region: local.region, credentials });
    await expect(provisionFromTemplate({ sqs, sns: snsClient, template })).rejects.toThrow(
      new LocalProvisioningError('Odd.SomethingNew cannot be applied locally; local runs would not match the deployed configuration'),
    );
  });
});
