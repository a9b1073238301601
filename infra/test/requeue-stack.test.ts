import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { InfraConfigError } from '@requeue/cdk';
import { resource, synthesize } from './synth.js';

const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });
const refTo = (logicalId: string) => ({ Ref: logicalId });

let template: Template;
beforeAll(() => {
  template = synthesize({}, { realImage: true });
});

const queueOf = (hint: string) => resource(template, 'AWS::SQS::Queue', hint);

describe('topic and subscription', () => {
  it('encrypts the topic with the AWS-managed SNS key and denies publishing without TLS', () => {
    const topic = resource(template, 'AWS::SNS::Topic', 'JobsTopic');
    expect(JSON.stringify(topic.Properties.KmsMasterKeyId)).toContain('alias/aws/sns');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [refTo(topic.logicalId)],
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
  });

  it('subscribes the queue with raw delivery and a dead-letter queue for undeliverable notifications', () => {
    const subscription = resource(template, 'AWS::SNS::Subscription', 'Jobs');
    expect(subscription.Properties).toEqual({
      Protocol: 'sqs',
      TopicArn: refTo(resource(template, 'AWS::SNS::Topic', 'JobsTopic').logicalId),
      Endpoint: arnOf(queueOf('JobsQueue').logicalId),
      RawMessageDelivery: true,
      RedrivePolicy: { deadLetterTargetArn: arnOf(queueOf('Undeliverable').logicalId) },
    });
  });

  it('applies a filter policy when given one, e.g. an allowlist of operations', () => {
    const filtered = synthesize({
      queue: { filterPolicy: { operation: sns.SubscriptionFilter.stringFilter({ allowlist: ['create', 'update', 'delete'] }) }, rawMessageDelivery: false },
    });
    filtered.hasResourceProperties('AWS::SNS::Subscription', { FilterPolicy: { operation: ['create', 'update', 'delete'] }, RawMessageDelivery: false });
  });
});

describe('queues', () => {
  it('main queue: 60 s visibility, 14 days retention, 20 s long polls, SSE-SQS, redrive to the DLQ after 5 receives, 8 KiB under its DLQ in size', () => {
    expect(queueOf('JobsQueue').Properties).toEqual({
      QueueName: 'Requeue-jobs',
      // Room for a dead letter's reason under the DLQ's 1 MiB.
      MaximumMessageSize: 1_040_384,
      VisibilityTimeout: 60,
      MessageRetentionPeriod: 1_209_600,
      ReceiveMessageWaitTimeSeconds: 20,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: arnOf(queueOf('DeadLetter').logicalId), maxReceiveCount: 5 },
    });
  });

  it('DLQ: 14 days, SSE-SQS, and a redrive allow policy naming only the main queue', () => {
    const dlq = queueOf('DeadLetter');
    expect(dlq.Properties).toMatchObject({
      QueueName: 'Requeue-jobs-dlq',
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
      MaximumMessageSize: 1_048_576,
    });
    const allow = dlq.Properties.RedriveAllowPolicy as { redrivePermission: string; sourceQueueArns: unknown[] };
    expect(allow.redrivePermission).toBe('byQueue');
    expect(allow.sourceQueueArns).toHaveLength(1);
    expect(JSON.stringify(allow.sourceQueueArns[0])).toContain(':Requeue-jobs"');
  });

  it('undeliverable-notification queue: 14 days, SSE-SQS', () => {
    expect(queueOf('Undeliverable').Properties).toEqual({
      QueueName: 'Requeue-jobs-undeliverable',
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
  });

  it('every queue refuses requests without TLS', () => {
    for (const hint of ['JobsQueue', 'DeadLetter', 'Undeliverable']) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [refTo(queueOf(hint).logicalId)],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('takes the visibility timeout and maxReceiveCount as props', () => {
    const custom = synthesize({ queue: { visibilityTimeout: Duration.seconds(120), maxReceiveCount: 8, queueName: 'orders' } });
    custom.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'orders', VisibilityTimeout: 120, RedrivePolicy: Match.objectLike({ maxReceiveCount: 8 }) });
  });
});

describe('worker service', () => {
  it("gives the task role exactly: consume and send (requeue) on the queue; send on the DLQ; scale-in protection of its cluster's tasks; nothing else", () => {
    const role = resource(template, 'AWS::IAM::Role', 'WorkerTaskRole');
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [refTo(role.logicalId)] } }));
    expect(policies).toHaveLength(1);
    const statements = policies[0]!.Properties.PolicyDocument.Statement as Array<{ Effect: string; Action: string | string[]; Resource: unknown }>;
    const actionsOn = (logicalId: string) =>
      [...new Set(statements.filter((st) => JSON.stringify(st.Resource) === JSON.stringify(arnOf(logicalId))).flatMap((st) => [st.Action].flat()))].sort();
    expect(statements.every((st) => st.Effect === 'Allow')).toBe(true);
    expect(actionsOn(queueOf('JobsQueue').logicalId)).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
    expect(actionsOn(queueOf('DeadLetter').logicalId)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    const covered = new Set([JSON.stringify(arnOf(queueOf('JobsQueue').logicalId)), JSON.stringify(arnOf(queueOf('DeadLetter').logicalId))]);
    const others = statements.filter((st) => !covered.has(JSON.stringify(st.Resource)));
    expect(others.map((st) => st.Action)).toEqual(['ecs:UpdateTaskProtection']);
    expect(JSON.stringify(others[0]!.Resource)).toMatch(/":task\/",\{"Ref":"WorkerCluster[0-9A-F]+"\},"\/\*"/);
  });

  it('passes the queues, handler, retry policy and metrics namespace, and builds the image from apps/worker/Dockerfile', () => {
    const container = (resource(template, 'AWS::ECS::TaskDefinition', 'WorkerTask').Properties.ContainerDefinitions as Array<Record<string, unknown>>)[0]!;
    const environment = Object.fromEntries((container.Environment as Array<{ Name: string; Value: unknown }>).map((e) => [e.Name, e.Value]));
    expect(environment).toMatchObject({
      WORKER_QUEUE_URL: refTo(queueOf('JobsQueue').logicalId),
      WORKER_DLQ_URL: refTo(queueOf('DeadLetter').logicalId),
      WORKER_HANDLER: 'webhook',
      RETRY_POLICY: '{}',
      METRICS_NAMESPACE: 'requeue',
      WORKER_DRAIN_TIMEOUT_MS: '30000',
      // V8 sized for the 512 MB task: old space at 3/8 of it.
      NODE_OPTIONS: '--max-semi-space-size=8 --max-old-space-size=192',
    });
    expect(JSON.stringify(container.Image)).toContain('container-assets');
    // SIGTERM to SIGKILL must outlast the drain.
    expect(container.StopTimeout).toBeGreaterThanOrEqual(30 + 1);
    expect((container.HealthCheck as { Command: string[] }).Command.join(' ')).toContain('/health/live');
  });

  it('validates the retry policy at synth and passes it as JSON', () => {
    const policy = { maxAttempts: 5, deadlineSeconds: 3600 };
    const custom = synthesize({ worker: { retryPolicy: policy, handler: 'simulation' } });
    custom.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [
        Match.objectLike({
          Environment: Match.arrayWith([
            { Name: 'WORKER_HANDLER', Value: 'simulation' },
            { Name: 'RETRY_POLICY', Value: JSON.stringify(policy) },
          ]),
        }),
      ],
    });
    expect(() => synthesize({ worker: { retryPolicy: { maxAttempts: -1 } } })).toThrow(InfraConfigError);
    expect(() => synthesize({ worker: { retryPolicy: { maxAttempts: -1 } } })).toThrow(/retryPolicy: .*maxAttempts/);
  });

  it('runs in public subnets with a public IP and no NAT gateway, admitting no inbound traffic', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'ENABLED' }) },
      DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
    });
    const group = resource(template, 'AWS::EC2::SecurityGroup', 'WorkerSecurityGroup');
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
  });

  it('keeps logs for a month and deletes them with the stack', () => {
    const logs = resource(template, 'AWS::Logs::LogGroup', 'WorkerLogs');
    expect(logs.Properties.RetentionInDays).toBe(30);
    expect(logs.DeletionPolicy).toBe('Delete');
  });

  it('tracks visible messages per running task with one target-tracking policy, and starts the first task from zero with a step policy', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 10 });
    const policies = Object.values(template.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'));
    expect(policies.map((p) => p.Properties.PolicyType).sort()).toEqual(['StepScaling', 'TargetTrackingScaling']);
    const tracking = policies.find((p) => p.Properties.PolicyType === 'TargetTrackingScaling')!.Properties.TargetTrackingScalingPolicyConfiguration;
    expect(tracking.TargetValue).toBe(100);
    const metrics = tracking.CustomizedMetricSpecification.Metrics as Array<{
      Id: string;
      Expression?: string;
      ReturnData: boolean;
      MetricStat?: { Metric: { MetricName: string } };
    }>;
    expect(metrics.find((m) => m.ReturnData)!.Expression).toBe('IF(FILL(running, 0) > 0, visible / FILL(running, 0), visible)');
    expect(Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat!.Metric.MetricName]))).toEqual({
      visible: 'ApproximateNumberOfMessagesVisible',
      running: 'RunningTaskCount',
    });
    const fromZero = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((a) =>
      String(a.Properties.AlarmDescription).includes('no task runs'),
    );
    expect(fromZero).toHaveLength(1);
    expect((fromZero[0]!.Properties.Metrics as Array<{ Expression?: string }>).find((m) => m.Expression)!.Expression).toBe(
      'IF(FILL(running, 0) == 0 AND visible > 0, 1, 0)',
    );
  });

  it('takes capacity and backlog target as props', () => {
    const custom = synthesize({ worker: { minCapacity: 0, maxCapacity: 40, backlogPerTask: 500 } });
    custom.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 0, MaxCapacity: 40 });
    custom.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', { TargetTrackingScalingPolicyConfiguration: { TargetValue: 500 } });
  });

  it('rejects props that cannot work, naming the prop', () => {
    expect(() => synthesize({ worker: { drainTimeout: Duration.seconds(110) } })).toThrow(/drainTimeout: must be at most 105 s/);
    expect(() => synthesize({ worker: { minCapacity: 5, maxCapacity: 2 } })).toThrow(/maxCapacity/);
    expect(() => synthesize({ queue: { maxReceiveCount: 0 } })).toThrow(/maxReceiveCount/);
    expect(() => synthesize({ queue: { visibilityTimeout: Duration.hours(13) } })).toThrow(/visibilityTimeout: must be whole seconds from 0 to 12 hours/);
    expect(() => synthesize({ monitoring: { errorRateThreshold: 30 } })).toThrow(/errorRateThreshold: is a fraction/);
  });
});

describe('alarms', () => {
  type AlarmProperties = Record<string, unknown> & {
    Metrics?: Array<{ Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string }; Period: number; Stat: string } }>;
  };
  const alarm = (hint: string, t = template) => resource(t, 'AWS::CloudWatch::Alarm', hint).Properties as AlarmProperties;
  const alarmTopic = () => refTo(resource(template, 'AWS::SNS::Topic', 'AlarmTopic').logicalId);

  it.each([
    ['QueueDepth', 'ApproximateNumberOfMessagesVisible', 'AWS/SQS', 5000],
    ['DeadLetter', 'ApproximateNumberOfMessagesVisible', 'AWS/SQS', 0],
    ['OldestMessageAge', 'ApproximateAgeOfOldestMessage', 'AWS/SQS', 900],
    ['FailedNotifications', 'NumberOfNotificationsFailed', 'AWS/SNS', 0],
  ])('%s alarm: %s (%s) over %d, 1-minute period, notifying the alarm topic', (hint, metricName, namespace, threshold) => {
    expect(alarm(hint)).toMatchObject({
      MetricName: metricName,
      Namespace: namespace,
      Threshold: threshold,
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      ActionsEnabled: true,
      AlarmActions: [alarmTopic()],
    });
  });

  it('the DLQ alarm watches the DLQ, so it fires on the first dead letter', () => {
    expect(alarm('DeadLetter').Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueOf('DeadLetter').logicalId, 'QueueName'] } }]);
  });

  it('error rate: (retried + dead-lettered) / received from the worker EMF metrics, over 30%', () => {
    const props = alarm('ErrorRate');
    expect(props).toMatchObject({ Threshold: 0.3, EvaluationPeriods: 1, AlarmActions: [alarmTopic()] });
    expect(props.Metrics!.find((m) => m.Expression)!.Expression).toBe('IF(received >= 10, (FILL(retried, 0) + FILL(deadLettered, 0)) / received, 0)');
    const inputs = Object.fromEntries(
      props.Metrics!.filter((m) => m.MetricStat).map((m) => [m.Id, { ...m.MetricStat!.Metric, Period: m.MetricStat!.Period, Stat: m.MetricStat!.Stat }]),
    );
    const queueDimension = [{ Name: 'Queue', Value: { 'Fn::GetAtt': [queueOf('JobsQueue').logicalId, 'QueueName'] } }];
    expect(inputs).toEqual({
      received: { Namespace: 'requeue', MetricName: 'MessagesReceived', Dimensions: queueDimension, Period: 60, Stat: 'Sum' },
      retried: { Namespace: 'requeue', MetricName: 'MessagesRetried', Dimensions: queueDimension, Period: 60, Stat: 'Sum' },
      deadLettered: { Namespace: 'requeue', MetricName: 'MessagesDeadLettered', Dimensions: queueDimension, Period: 60, Stat: 'Sum' },
    });
  });

  it('backlog with no consumption: visible messages and no deletes for 10 minutes', () => {
    const props = alarm('Stalled');
    expect(props).toMatchObject({ Threshold: 0, EvaluationPeriods: 10, DatapointsToAlarm: 10 });
    expect(props.Metrics!.find((m) => m.Expression)!.Expression).toBe('IF(visible > 0 AND FILL(deleted, 0) == 0, 1, 0)');
    expect(props.Metrics!.filter((m) => m.MetricStat).map((m) => [m.MetricStat!.Metric.MetricName, m.MetricStat!.Period])).toEqual([
      ['ApproximateNumberOfMessagesVisible', 60],
      ['NumberOfMessagesDeleted', 60],
    ]);
  });

  it('exhaustion: any message dead-lettered with Reason=max-attempts, from the worker EMF metrics', () => {
    expect(alarm('Exhausted')).toMatchObject({
      Namespace: 'requeue',
      MetricName: 'MessagesDeadLettered',
      Dimensions: [
        { Name: 'Queue', Value: { 'Fn::GetAtt': [queueOf('JobsQueue').logicalId, 'QueueName'] } },
        { Name: 'Reason', Value: 'max-attempts' },
      ],
      Statistic: 'Sum',
      Threshold: 0,
      AlarmActions: [alarmTopic()],
    });
  });

  it('first failures: opt-in, an alarm on FirstFailures over the threshold only when one is set', () => {
    expect(Object.values(template.findResources('AWS::CloudWatch::Alarm')).some((a) => a.Properties.MetricName === 'FirstFailures')).toBe(false);
    const optedIn = synthesize({ monitoring: { firstFailuresThreshold: 25 } });
    expect(alarm('FirstFailures', optedIn)).toMatchObject({ Namespace: 'requeue', MetricName: 'FirstFailures', Statistic: 'Sum', Threshold: 25, Period: 60 });
  });

  it('takes every threshold as a prop, and subscribes an email when given', () => {
    const custom = synthesize({
      monitoring: {
        queueDepthThreshold: 100,
        deadLetterThreshold: 3,
        oldestMessageAgeThreshold: Duration.minutes(2),
        errorRateThreshold: 0.5,
        failedNotificationsThreshold: 7,
        stalledFor: Duration.minutes(4),
        alarmEmail: 'ops@example.com',
      },
    });
    expect([alarm('QueueDepth', custom).Threshold, alarm('DeadLetter', custom).Threshold, alarm('OldestMessageAge', custom).Threshold]).toEqual([100, 3, 120]);
    expect([alarm('ErrorRate', custom).Threshold, alarm('FailedNotifications', custom).Threshold, alarm('Stalled', custom).EvaluationPeriods]).toEqual([
      0.5, 7, 4,
    ]);
    custom.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('dashboard', () => {
  /** The dashboard body with every CloudFormation token replaced by a placeholder, parsed. */
  function widgets(): Array<{ type: string; properties: { title: string; stacked?: boolean; metrics?: unknown[]; alarms?: unknown[] } }> {
    const body = resource(template, 'AWS::CloudWatch::Dashboard', 'Dashboard').Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
    const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
    return (JSON.parse(text) as { widgets: ReturnType<typeof widgets> }).widgets;
  }
  const metricsOf = (title: string) => JSON.stringify(widgets().find((w) => w.properties.title === title)?.properties.metrics ?? null);

  it('has the queue, DLQ, worker, service and alarm widgets', () => {
    expect(widgets().map((w) => w.properties.title)).toEqual([
      'Alarms',
      'Messages: visible / in flight / delayed',
      'Age of oldest message (s)',
      'Sent vs deleted per minute',
      'DLQ: depth and inflow',
      'Processed per minute',
      'Retried by ErrorType',
      'First failures by ErrorType',
      'Dead-lettered by Reason',
      'Handler duration (ms)',
      'Retry delay (s)',
      'Dead letters by cause (ids as `requeue dlq triage` prints them)',
      'Running tasks',
      'Task CPU and memory (%)',
    ]);
  });

  it('stacks visible, in flight and delayed, and shows every alarm', () => {
    const stack = widgets().find((w) => w.properties.title.startsWith('Messages'))!;
    expect(stack.properties.stacked).toBe(true);
    for (const name of ['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed']) {
      expect(JSON.stringify(stack.properties.metrics)).toContain(name);
    }
    expect(widgets()[0]!.properties.alarms).toHaveLength(7);
  });

  it('plots the worker metrics: retried by ErrorType, dead-lettered by Reason, duration p50/p99, retry delay', () => {
    expect(metricsOf('Retried by ErrorType')).toContain('MetricName=\\"MessagesRetried\\"');
    expect(metricsOf('Retried by ErrorType')).toContain('{requeue,Queue,ErrorType}');
    expect(metricsOf('First failures by ErrorType')).toContain('MetricName=\\"FirstFailures\\"');
    expect(metricsOf('Dead-lettered by Reason')).toContain('{requeue,Queue,Reason}');
    expect(metricsOf('Handler duration (ms)')).toMatch(/HandlerDuration.*p50.*p99/);
    expect(metricsOf('Retry delay (s)')).toContain('RetryDelay');
    expect(metricsOf('Sent vs deleted per minute')).toMatch(/NumberOfMessagesSent.*NumberOfMessagesDeleted/);
    expect(metricsOf('Running tasks')).toContain('RunningTaskCount');
    expect(metricsOf('Task CPU and memory (%)')).toMatch(/CPUUtilization.*MemoryUtilization/);
  });
});

describe('outputs', () => {
  it('exports the topic, queue, DLQ, dashboard and alarm topic', () => {
    expect(Object.keys(template.findOutputs('*'))).toEqual(['TopicArn', 'QueueUrl', 'DLQUrl', 'DashboardUrl', 'AlarmTopicArn']);
    expect(JSON.stringify(template.findOutputs('DashboardUrl'))).toContain('#dashboards:name=');
  });

  it.each([
    ['aws', 'us-east-1', 'https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#dashboards:name='],
    ['aws-cn', 'cn-north-1', 'https://cn-north-1.console.amazonaws.cn/cloudwatch/home?region=cn-north-1#dashboards:name='],
    ['aws-us-gov', 'us-gov-west-1', 'https://us-gov-west-1.console.amazonaws-us-gov.com/cloudwatch/home?region=us-gov-west-1#dashboards:name='],
  ])('DashboardUrl opens the console of the %s partition', (partition, region, expected) => {
    const json = template.toJSON() as { Mappings: Record<string, Record<string, Record<string, string>>>; Outputs: Record<string, { Value: unknown }> };
    const resolve = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const node = value as Record<string, unknown>;
      if ('Fn::Join' in node) {
        const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
        return parts.map(resolve).join(separator);
      }
      if ('Fn::FindInMap' in node) {
        const [map, key, field] = (node['Fn::FindInMap'] as unknown[]).map(resolve);
        return json.Mappings[map!]![key!]![field!]!;
      }
      const ref = node.Ref as string;
      return ref === 'AWS::Partition' ? partition : ref === 'AWS::Region' ? region : `<${ref}>`;
    };
    expect(resolve(json.Outputs.DashboardUrl!.Value)).toMatch(new RegExp(`^${expected.replace(/[.?]/g, '\\$&')}<\\w+>$`));
  });
});

describe('template snapshot', () => {
  it('matches the committed template (asset hashes masked)', async () => {
    const json = JSON.stringify(template.toJSON(), null, 2).replace(/[0-9a-f]{64}/g, '<asset-hash>');
    await expect(json).toMatchFileSnapshot('./__snapshots__/Requeue.template.json');
  });
});

describe('without the worker (queues and monitoring only)', () => {
  it('has the topic, queues and alarms, and no ECS, VPC or scaling resources', () => {
    const queuesOnly = synthesize({ worker: false });
    queuesOnly.resourceCountIs('AWS::SQS::Queue', 3);
    queuesOnly.resourceCountIs('AWS::SNS::Subscription', 1);
    for (const type of ['AWS::ECS::Service', 'AWS::EC2::VPC', 'AWS::ApplicationAutoScaling::ScalingPolicy', 'AWS::IAM::Role'])
      queuesOnly.resourceCountIs(type, 0);
    queuesOnly.resourceCountIs('AWS::CloudWatch::Alarm', 7);
  });
});
