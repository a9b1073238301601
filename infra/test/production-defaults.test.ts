import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as kms from 'aws-cdk-lib/aws-kms';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueueMonitoring, RetryingQueue } from '@requeue/cdk';
import { RequeueStack } from '../lib/index.js';
import { resource, synthesize } from './synth.js';

interface Statement {
  Sid?: string;
  Effect: string;
  Principal?: { Service?: string } | string;
  Action: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}
type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

const ACCOUNT = { Ref: 'AWS::AccountId' };
const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

let template: Template;
beforeAll(() => {
  template = synthesize({ idempotency: {}, fleetState: true });
});

const removal = (type: string, of = template) =>
  Object.entries(of.findResources(type) as Resources).map(([id, r]) => [id, r.DeletionPolicy, r.UpdateReplacePolicy]);

/** Every key policy statement of every KMS key that names a service principal. */
function serviceKeyStatements(of: Template): Statement[] {
  return Object.values(of.findResources('AWS::KMS::Key') as Resources).flatMap((key) =>
    (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement.filter((s) => typeof s.Principal === 'object' && s.Principal.Service !== undefined),
  );
}

describe('what deleting the stack or replacing a resource keeps', () => {
  it('retains the queue, the DLQ and the undeliverable queue, with their messages, on delete and on replace', () => {
    const queues = removal('AWS::SQS::Queue');
    expect(queues).toHaveLength(3);
    for (const [id, onDelete, onReplace] of queues) expect([id, onDelete, onReplace]).toEqual([id, 'Retain', 'Retain']);
  });

  it('retains the idempotency table; the fleet-state table, which holds only seconds-old reports, goes with the stack', () => {
    expect(resource(template, 'AWS::DynamoDB::Table', 'Idempotency')).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(resource(template, 'AWS::DynamoDB::Table', 'FleetState')).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
  });

  it('deletes them when told to, through the removalPolicy props', () => {
    const told = synthesize({
      queue: { removalPolicy: RemovalPolicy.DESTROY },
      idempotency: { removalPolicy: RemovalPolicy.DESTROY },
      fleetState: { removalPolicy: RemovalPolicy.RETAIN },
    });
    for (const [id, onDelete, onReplace] of removal('AWS::SQS::Queue', told)) expect([id, onDelete, onReplace]).toEqual([id, 'Delete', 'Delete']);
    expect(resource(told, 'AWS::DynamoDB::Table', 'Idempotency').DeletionPolicy).toBe('Delete');
    expect(resource(told, 'AWS::DynamoDB::Table', 'FleetState').DeletionPolicy).toBe('Retain');
  });
});

describe('alarm notifications', () => {
  it('the alarm topic lets CloudWatch publish for this account and exactly the stack alarms, beside the TLS deny', () => {
    const topic = resource(template, 'AWS::SNS::Topic', 'AlarmTopic');
    const policy = Object.values(template.findResources('AWS::SNS::TopicPolicy') as Resources).find(
      (p) => JSON.stringify(p.Properties.Topics) === JSON.stringify([{ Ref: topic.logicalId }]),
    );
    const statements = (policy!.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).filter((id) => id.startsWith('Monitoring'));
    expect(alarms.length).toBeGreaterThanOrEqual(6);
    expect(statements).toContainEqual({
      Sid: 'CloudWatchAlarmsPublish',
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Resource: { Ref: topic.logicalId },
      Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT }, ArnLike: { 'aws:SourceArn': alarms.map(arnOf) } },
    });
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });

  it('the alarm topic key lets CloudWatch use it only for this account alarms in this region, and rotates', () => {
    const key = resource(template, 'AWS::KMS::Key', 'AlarmTopicKey');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(serviceKeyStatements(template)).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: {
          StringEquals: { 'aws:SourceAccount': ACCOUNT },
          ArnLike: {
            'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', ACCOUNT, ':alarm:*']] },
          },
        },
      }),
    ]);
    expect(resource(template, 'AWS::SNS::Topic', 'AlarmTopic').Properties.KmsMasterKeyId).toEqual(arnOf(key.logicalId));
  });

  it('an alarm of your own added with addAlarm notifies the topic and is allowed to publish', () => {
    const stack = new Stack(new App(), 'Mine');
    const jobs = new RetryingQueue(stack, 'Jobs');
    const monitoring = new QueueMonitoring(stack, 'Monitoring', { queue: jobs.queue, deadLetterQueue: jobs.deadLetterQueue });
    const mine = new cloudwatch.Alarm(stack, 'MyAlarm', { metric: jobs.queue.metricNumberOfMessagesSent(), threshold: 1, evaluationPeriods: 1 });
    monitoring.addAlarm(mine);
    const mineTemplate = Template.fromStack(stack);
    const myAlarm = resource(mineTemplate, 'AWS::CloudWatch::Alarm', 'MyAlarm');
    expect(myAlarm.Properties.AlarmActions).toEqual([{ Ref: resource(mineTemplate, 'AWS::SNS::Topic', 'AlarmTopic').logicalId }]);
    expect(JSON.stringify(mineTemplate.findResources('AWS::SNS::TopicPolicy'))).toContain(JSON.stringify(arnOf(myAlarm.logicalId)));
  });

  it('with a customer-managed queue key, SNS may use it only for the stack topic, whatever the app feature flags', () => {
    const stack = new Stack(new App({ context: { '@aws-cdk/aws-sns-subscriptions:restrictSqsDescryption': false } }), 'Keyed');
    const jobs = new RetryingQueue(stack, 'Jobs', { encryptionKey: new kms.Key(stack, 'QueueKey', { enableKeyRotation: true }) });
    const keyed = Template.fromStack(stack);
    const sns = serviceKeyStatements(keyed).filter((s) => (s.Principal as { Service: string }).Service === 'sns.amazonaws.com');
    expect(sns).not.toHaveLength(0);
    for (const statement of sns) expect(statement.Condition).toEqual({ ArnEquals: { 'aws:SourceArn': stack.resolve(jobs.topic.topicArn) } });
  });
});

describe('the x-retry key', () => {
  it('comes from a generated secret as WORKER_RETRY_STATE_KEYS, which the execution role may read and the task role may not', () => {
    const secret = resource(template, 'AWS::SecretsManager::Secret', 'RetryStateKeys');
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!;
    expect(task.Properties.ContainerDefinitions[0].Secrets).toEqual([{ Name: 'WORKER_RETRY_STATE_KEYS', ValueFrom: { Ref: secret.logicalId } }]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy') as Resources);
    const readers = policies.filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(JSON.stringify({ Ref: secret.logicalId })));
    expect(readers.map((p) => JSON.stringify(p.Properties.Roles))).toEqual([JSON.stringify([{ Ref: task.Properties.ExecutionRoleArn['Fn::GetAtt'][0] }])]);
  });
});

describe('cpuArchitecture', () => {
  it('runs on x86-64 by default and on Graviton with ARM64, building the image asset for the same platform', () => {
    const platformOf = (architecture?: ecs.CpuArchitecture) => {
      const app = new App();
      const stack = new RequeueStack(app, 'Requeue', { worker: architecture ? { cpuArchitecture: architecture } : {} });
      const runtime = Template.fromStack(stack).findResources('AWS::ECS::TaskDefinition');
      const assembly = app.synth();
      const assets = JSON.parse(readFileSync(join(assembly.directory, 'Requeue.assets.json'), 'utf8')) as {
        dockerImages: Record<string, { source: { platform: string } }>;
      };
      return [Object.values(runtime)[0]!.Properties.RuntimePlatform.CpuArchitecture, Object.values(assets.dockerImages)[0]!.source.platform];
    };
    expect(platformOf()).toEqual(['X86_64', 'linux/amd64']);
    expect(platformOf(ecs.CpuArchitecture.ARM64)).toEqual(['ARM64', 'linux/arm64']);
  });
});
