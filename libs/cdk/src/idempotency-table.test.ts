import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { IdempotencyTable, InfraConfigError, QueueWorkerService, RetryingQueue, type QueueWorkerServiceProps } from './index.js';

const image = ecs.ContainerImage.fromRegistry('example/orders-worker:1');

function idempotentWorker(props: Partial<QueueWorkerServiceProps> & { key?: kms.IKey } = {}) {
  const stack = new Stack(new App(), 'Orders');
  const queues = new RetryingQueue(stack, 'Orders', { queueName: 'orders' });
  const table = new IdempotencyTable(stack, 'Idempotency', props.key ? { encryptionKey: props.key } : {});
  new QueueWorkerService(stack, 'Worker', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, image, idempotencyTable: table, ...props });
  return { template: Template.fromStack(stack), stack, table };
}

describe('IdempotencyTable with QueueWorkerService', () => {
  it('is an on-demand table with TTL, point-in-time recovery and encryption, keyed as the Powertools layer writes', () => {
    const { template } = idempotentWorker();
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('grants the task role exactly the four record actions on the table, and tells the worker where it is', () => {
    const { template } = idempotentWorker({ idempotencyKey: 'body.orderId' });
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
    const onTable = statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('dynamodb:')));
    expect(onTable).toHaveLength(1);
    expect([onTable[0]!.Action].flat().sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [
        Match.objectLike({
          Environment: Match.arrayWith([
            { Name: 'WORKER_IDEMPOTENCY', Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) },
            { Name: 'WORKER_IDEMPOTENCY_KEY', Value: 'body.orderId' },
          ]),
        }),
      ],
    });
  });

  it('covers a customer-managed key in the grants', () => {
    const stack = new Stack(new App(), 'Keyed');
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const queues = new RetryingQueue(stack, 'Orders', { queueName: 'orders' });
    const table = new IdempotencyTable(stack, 'Idempotency', { encryptionKey: key });
    new QueueWorkerService(stack, 'Worker', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, image, idempotencyTable: table });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true, SSEType: 'KMS' } });
    const actions = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>).flatMap((statement) => [statement.Action].flat()),
    );
    expect(actions).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt']));
  });

  it('refuses a key without a table, or a key the worker cannot read, naming the prop', () => {
    const stack = new Stack(new App(), 'Bad');
    const queues = new RetryingQueue(stack, 'Orders', { queueName: 'orders' });
    const props = { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, image };
    expect(() => new QueueWorkerService(stack, 'A', { ...props, idempotencyKey: 'message' })).toThrow(InfraConfigError);
    const table = new IdempotencyTable(stack, 'Idempotency');
    expect(() => new QueueWorkerService(stack, 'B', { ...props, idempotencyTable: table, idempotencyKey: 'orderId' })).toThrow(
      'idempotencyKey: must be message or a path into the body',
    );
  });
});
