import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { MetricName } from '@requeue/sqs/metric-names';
import { describe, expect, it } from 'vitest';
import { InfraConfigError, QueueMonitoring, QueueWorkerService, RetryingQueue, type QueueWorkerServiceProps } from './index.js';

const image = ecs.ContainerImage.fromRegistry('example/orders-worker:1');

function stackWithQueue(queueProps: ConstructorParameters<typeof RetryingQueue>[2] = {}) {
  const stack = new Stack(new App(), 'Orders');
  const queues = new RetryingQueue(stack, 'Orders', { queueName: 'orders', ...queueProps });
  return { stack, queues };
}

function worker(stack: Stack, queues: RetryingQueue, props: Partial<QueueWorkerServiceProps> = {}) {
  return new QueueWorkerService(stack, 'Worker', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, image, ...props });
}

function environmentOf(template: Template): Record<string, unknown> {
  const [definition] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
  const [container] = definition!.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>;
  return Object.fromEntries(container!.Environment.map((e) => [e.Name, e.Value]));
}

describe('QueueWorkerService in a stack of your own', () => {
  it('runs in the cluster you give it, creating no cluster or VPC, in its private subnets', () => {
    const { stack, queues } = stackWithQueue();
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2 });
    const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
    const service = worker(stack, queues, { cluster });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::ECS::Cluster', 1);
    template.resourceCountIs('AWS::EC2::VPC', 1);
    expect(service.cluster).toBe(cluster);
    template.hasResourceProperties('AWS::ECS::Service', {
      Cluster: { Ref: stack.getLogicalId(cluster.node.defaultChild as ecs.CfnCluster) },
      NetworkConfiguration: {
        AwsvpcConfiguration: Match.objectLike({
          AssignPublicIp: 'DISABLED',
          Subnets: vpc.privateSubnets.map((s) => ({ Ref: stack.getLogicalId(s.node.defaultChild as ec2.CfnSubnet) })),
        }),
      },
    });
  });

  it('refuses a cluster and a VPC together, naming the prop', () => {
    const { stack, queues } = stackWithQueue();
    const vpc = new ec2.Vpc(stack, 'Vpc');
    const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
    expect(() => worker(stack, queues, { cluster, vpc })).toThrow(InfraConfigError);
    expect(() => worker(stack, queues, { cluster, vpc })).toThrow(/^vpc: cannot be given with cluster/);
  });

  it('runs the image it is given', () => {
    const { stack, queues } = stackWithQueue();
    worker(stack, queues);
    Template.fromStack(stack).hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Image: 'example/orders-worker:1' })],
    });
  });

  it('grants the task role the queue key through the grant methods: decrypt to receive, data keys to send', () => {
    const own = new Stack(new App(), 'Keyed');
    const key = new kms.Key(own, 'QueueKey', { enableKeyRotation: true });
    const keyed = new RetryingQueue(own, 'Orders', { queueName: 'orders', encryptionKey: key });
    const service = worker(own, keyed);
    const template = Template.fromStack(own);
    const keyArn = { 'Fn::GetAtt': [own.getLogicalId(key.node.defaultChild as kms.CfnKey), 'Arn'] };
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: own.getLogicalId(service.taskRole.node.defaultChild as iam.CfnRole) }]))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
    const onKey = statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify(keyArn)).flatMap((s) => [s.Action].flat());
    expect(onKey).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']));
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(3);
    for (const q of queues) expect(q.Properties.KmsMasterKeyId).toEqual(keyArn);
  });

  it('gives a second queue the app consumes the same rights with consumeFrom: consume and requeue on it, dead-letter on its DLQ', () => {
    // A template is synthesized once per app: each case builds its own.
    const rights = (consume: boolean) => {
      const { stack, queues } = stackWithQueue();
      const emails = new RetryingQueue(stack, 'Emails', { queueName: 'emails' });
      const service = worker(stack, queues);
      if (consume) service.consumeFrom(emails.queue, emails.deadLetterQueue);
      const statements = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: stack.getLogicalId(service.taskRole.node.defaultChild as iam.CfnRole) }]))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
      const on = (queue: sqs.IQueue) => {
        const arn = JSON.stringify({ 'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as sqs.CfnQueue), 'Arn'] });
        return statements.filter((statement) => JSON.stringify(statement.Resource) === arn).flatMap((statement) => [statement.Action].flat());
      };
      return { queue: on(emails.queue), dlq: on(emails.deadLetterQueue) };
    };
    expect(rights(false)).toEqual({ queue: [], dlq: [] });
    const granted = rights(true);
    expect(granted.queue).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:SendMessage']));
    expect(granted.dlq).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(granted.dlq).not.toContain('sqs:ReceiveMessage');
  });
});

describe('task scale-in protection', () => {
  const protectionStatements = (stack: Stack, service: QueueWorkerService) =>
    Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: stack.getLogicalId(service.taskRole.node.defaultChild as iam.CfnRole) }]))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>)
      .filter((statement) => [statement.Action].flat().includes('ecs:UpdateTaskProtection'));

  it('lets the task role protect the tasks of its own cluster, and nothing else', () => {
    const { stack, queues } = stackWithQueue();
    const cluster = new ecs.Cluster(stack, 'Cluster', { vpc: new ec2.Vpc(stack, 'Vpc') });
    const service = worker(stack, queues, { cluster });
    const [statement, ...more] = protectionStatements(stack, service);
    expect(more).toEqual([]);
    expect(statement!.Action).toBe('ecs:UpdateTaskProtection');
    expect(JSON.stringify(statement!.Resource)).toContain(
      `":ecs:",{"Ref":"AWS::Region"},":",{"Ref":"AWS::AccountId"},":task/",{"Ref":"${stack.getLogicalId(cluster.node.defaultChild as ecs.CfnCluster)}"},"/*"`,
    );
    expect(environmentOf(Template.fromStack(stack)).WORKER_TASK_PROTECTION).toBeUndefined();
  });

  it("grants nothing and turns the worker's protection off with taskProtection: false", () => {
    const { stack, queues } = stackWithQueue();
    const service = worker(stack, queues, { taskProtection: false });
    expect(protectionStatements(stack, service)).toEqual([]);
    expect(environmentOf(Template.fromStack(stack)).WORKER_TASK_PROTECTION).toBe('off');
  });
});

describe('Fargate Spot', () => {
  it("runs a base on on-demand Fargate and the rest weighted onto Spot, stopping within Spot's two-minute warning", () => {
    const { stack, queues } = stackWithQueue();
    const service = worker(stack, queues, { spot: { onDemandBase: 2, spotWeight: 4 } });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ECS::Service', {
      CapacityProviderStrategy: [
        { CapacityProvider: 'FARGATE', Base: 2, Weight: 1 },
        { CapacityProvider: 'FARGATE_SPOT', Weight: 4 },
      ],
    });
    template.hasResourceProperties('AWS::ECS::ClusterCapacityProviderAssociations', { CapacityProviders: Match.arrayWith(['FARGATE', 'FARGATE_SPOT']) });
    const [definition] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
    expect(definition!.Properties.ContainerDefinitions[0].StopTimeout).toBe(120);
    expect(environmentOf(template).WORKER_DRAIN_TIMEOUT_MS).toBe('105000');
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ source: ['aws.ecs'], detail: Match.objectLike({ stopCode: ['SpotInterruption'], lastStatus: ['STOPPED'] }) }),
    });
    expect(service.spotInterruptions).toBeDefined();
  });

  it("refuses a drain that would not end before Spot's SIGKILL, and graphs interruptions on the dashboard", () => {
    const { stack, queues } = stackWithQueue();
    expect(() => worker(stack, queues, { spot: {}, drainTimeout: Duration.seconds(110) })).toThrow(/^drainTimeout: must be at most 105 s/);
    const service = worker(stack, queues, { spot: {} });
    new QueueMonitoring(stack, 'Monitoring', {
      queue: queues.queue,
      deadLetterQueue: queues.deadLetterQueue,
      service: service.service,
      spotInterruptions: service.spotInterruptions,
    });
    const [dashboard] = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(dashboard!.Properties.DashboardBody)).toContain('Spot interruptions');
  });

  it('leaves a service without spot on on-demand Fargate, with no rule', () => {
    const { stack, queues } = stackWithQueue();
    expect(worker(stack, queues).spotInterruptions).toBeUndefined();
    Template.fromStack(stack).resourceCountIs('AWS::Events::Rule', 0);
  });
});

describe('tokens', () => {
  it('accepts tokens for numbers known only at deploy, and passes them through', () => {
    const { stack, queues } = stackWithQueue();
    const inFlight = new CfnParameter(stack, 'InFlight', { type: 'Number' }).valueAsNumber;
    const memory = new CfnParameter(stack, 'Memory', { type: 'Number' }).valueAsNumber;
    worker(stack, queues, { maxInFlight: inFlight, memoryLimitMiB: memory, minCapacity: new CfnParameter(stack, 'Min', { type: 'Number' }).valueAsNumber });
    const environment = environmentOf(Template.fromStack(stack));
    expect(environment.WORKER_MAX_IN_FLIGHT).toEqual({ Ref: 'InFlight' });
    // The heap flags need the memory as a number; with a token Node sizes the heap itself.
    expect(environment.NODE_OPTIONS).toBeUndefined();
  });

  it('accepts a token for maxReceiveCount and visibility on the queue', () => {
    const stack = new Stack(new App(), 'Orders');
    const count = new CfnParameter(stack, 'Receives', { type: 'Number' }).valueAsNumber;
    new RetryingQueue(stack, 'Orders', { queueName: 'orders', maxReceiveCount: count });
    Template.fromStack(stack).hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: { Ref: 'Receives' } }) });
  });

  it('refuses a token where the construct computes with the number, saying why, and passes the backlog target through', () => {
    const { stack, queues } = stackWithQueue();
    expect(() => worker(stack, queues, { drainTimeout: Duration.seconds(new CfnParameter(stack, 'Drain', { type: 'Number' }).valueAsNumber) })).toThrow(
      /^drainTimeout: must be a concrete number, not a token/,
    );
    worker(stack, queues, { backlogPerTask: new CfnParameter(stack, 'Backlog', { type: 'Number' }).valueAsNumber });
    Template.fromStack(stack).hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: { TargetValue: { Ref: 'Backlog' } },
    });
  });

  it("sets a batch handler's size and window for the worker, and refuses a size its handler slots could never fill", () => {
    const { stack, queues } = stackWithQueue();
    worker(stack, queues, { maxInFlight: 40, batch: { size: 25, window: Duration.millis(200) } });
    expect(environmentOf(Template.fromStack(stack))).toMatchObject({ WORKER_BATCH_SIZE: '25', WORKER_BATCH_WINDOW_MS: '200' });
    const other = stackWithQueue();
    expect(environmentOf(Template.fromStack((worker(other.stack, other.queues), other.stack))).WORKER_BATCH_SIZE).toBeUndefined();
    expect(() => worker(stack, queues, { batch: { size: 20 } })).toThrow(/^batch\.size: must be at most maxInFlight \(10\)/);
    expect(() => worker(stack, queues, { batch: { window: Duration.minutes(2) } })).toThrow(/^batch\.window: must be a whole number from 0 to 60000/);
  });

  it('still rejects concrete numbers out of range', () => {
    const { stack, queues } = stackWithQueue();
    expect(() => worker(stack, queues, { maxInFlight: 0 })).toThrow(/^maxInFlight: must be a whole number from 1 to 1000, got 0/);
  });
});

describe('QueueMonitoring for any queue', () => {
  it("watches an imported queue without a topic, under the default namespace, with the engine's metric names", () => {
    const stack = new Stack(new App(), 'Ops', { env: { account: '123456789012', region: 'eu-west-1' } });
    const queue = sqs.Queue.fromQueueArn(stack, 'Queue', 'arn:aws:sqs:eu-west-1:123456789012:billing');
    const deadLetterQueue = sqs.Queue.fromQueueArn(stack, 'Dlq', 'arn:aws:sqs:eu-west-1:123456789012:billing-dlq');
    const monitoring = new QueueMonitoring(stack, 'Monitoring', { queue, deadLetterQueue });
    expect(monitoring.alarms.failedNotifications).toBeUndefined();
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: MetricName.deadLettered,
      Namespace: 'requeue',
      Dimensions: Match.arrayWith([
        { Name: 'Queue', Value: 'billing' },
        { Name: 'Reason', Value: 'max-attempts' },
      ]),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: 'billing-dlq' }],
    });
  });

  it('notifies the alarm topic it is given instead of making one', () => {
    const stack = new Stack(new App(), 'Ops');
    const { queue, deadLetterQueue } = new RetryingQueue(stack, 'Jobs', { queueName: 'jobs' });
    const existing = new sns.Topic(stack, 'OnCall');
    new QueueMonitoring(stack, 'Monitoring', { queue, deadLetterQueue, alarmTopic: existing });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SNS::Topic', 2);
    template.resourceCountIs('AWS::KMS::Key', 0);
  });
});

describe('the package', () => {
  it('never imports cdk-nag: an app that does not use it can load the constructs', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThan(5);
    for (const file of sources) expect(readFileSync(`${dir}/${file}`, 'utf8'), file).not.toMatch(/from 'cdk-nag'/);
    expect(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))).not.toHaveProperty(['dependencies', 'cdk-nag']);
  });
});

describe('dead letters by cause', () => {
  it("tables the queue's dead letters by cause from the worker's logs, under triage's group ids", () => {
    const { stack, queues } = stackWithQueue();
    const service = worker(stack, queues);
    new QueueMonitoring(stack, 'Monitoring', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, workerLogGroup: service.logGroup });
    const [dashboard] = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    expect(body).toContain('Dead letters by cause');
    expect(body).toMatch(/filter msg = \W+dead-lettered\W+ and sourceQueue = /);
    expect(body).toContain('by deadLetterGroup, reason, errorType, dependency, fingerprint');
    // The query names the worker's log group and this queue, as deployed.
    expect(body).toContain(stack.resolve(service.logGroup.logGroupName).Ref);
    expect(body).toContain(stack.resolve(queues.queue.queueUrl).Ref);
  });
});
