import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { describe, expect, it } from 'vitest';
import { FleetStateTable, QueueWorkerService, RetryingQueue } from './index.js';

const image = ecs.ContainerImage.fromRegistry('example/orders-worker:1');

function service(withTable: boolean) {
  const stack = new Stack(new App(), 'Orders');
  const queues = new RetryingQueue(stack, 'Orders', { queueName: 'orders' });
  const fleetStateTable = withTable ? new FleetStateTable(stack, 'FleetState') : undefined;
  new QueueWorkerService(stack, 'Worker', {
    queue: queues.queue,
    deadLetterQueue: queues.deadLetterQueue,
    image,
    ...(fleetStateTable ? { fleetStateTable } : {}),
  });
  return Template.fromStack(stack);
}

const dynamoDbActions = (template: Template) =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
    .flatMap((statement) => [statement.Action].flat())
    .filter((action) => action.startsWith('dynamodb:'));

describe('FleetStateTable with QueueWorkerService', () => {
  it('grants the tasks UpdateItem on the table and nothing more, and tells the worker where it is', () => {
    const template = service(true);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(dynamoDbActions(template)).toEqual(['dynamodb:UpdateItem']);
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [
        Match.objectLike({ Environment: Match.arrayWith([{ Name: 'WORKER_FLEET_STATE', Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) }]) }),
      ],
    });
  });

  it('is off unless given: no table, no grant, no setting', () => {
    const template = service(false);
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(dynamoDbActions(template)).toEqual([]);
    const environment = Object.values(template.findResources('AWS::ECS::TaskDefinition')).flatMap(
      (task) => task.Properties.ContainerDefinitions[0].Environment as Array<{ Name: string }>,
    );
    expect(environment.map((variable) => variable.Name)).not.toContain('WORKER_FLEET_STATE');
  });
});
