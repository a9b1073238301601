import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { MetricName } from '@requeue/sqs/metric-names';
import { describe, expect, it } from 'vitest';
import { QueueMonitoring, QueueWorkerService, RetryingQueue, type QueueWorkerServiceProps } from './index.js';

function stackWithWorker(props: Partial<QueueWorkerServiceProps> = {}) {
  const stack = new Stack(new App(), 'Tenants');
  const queues = new RetryingQueue(stack, 'Jobs', { queueName: 'jobs' });
  const service = new QueueWorkerService(stack, 'Worker', {
    queue: queues.queue,
    deadLetterQueue: queues.deadLetterQueue,
    image: ecs.ContainerImage.fromRegistry('example/worker:1'),
    ...props,
  });
  return { stack, queues, service };
}

function environmentOf(stack: Stack): Record<string, unknown> {
  const [definition] = Object.values(Template.fromStack(stack).findResources('AWS::ECS::TaskDefinition'));
  const [container] = definition!.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>;
  return Object.fromEntries(container!.Environment.map((e) => [e.Name, e.Value]));
}

describe('tenants in the stack', () => {
  it("passes the worker's tenant settings as its environment, and none when tenants are off", () => {
    const on = environmentOf(stackWithWorker({ tenants: { key: 'group', maxInFlight: '90%', prefetch: 200, values: ['acme', 'globex'] } }).stack);
    expect(on).toMatchObject({
      WORKER_TENANT_KEY: 'group',
      WORKER_TENANT_MAX_IN_FLIGHT: '90%',
      WORKER_TENANT_PREFETCH: '200',
      WORKER_TENANT_VALUES: 'acme,globex',
    });
    const off = environmentOf(stackWithWorker().stack);
    expect(Object.keys(off).filter((name) => name.startsWith('WORKER_TENANT'))).toEqual([]);
  });

  it('refuses at synth a key, cap or prefetch the worker would refuse at start, naming the prop', () => {
    expect(() => stackWithWorker({ tenants: { key: 'customer' as 'group' } })).toThrow(/^tenants\.key: must be group, attribute\.<name> or body\.<path>/);
    expect(() => stackWithWorker({ tenants: { key: 'group', values: ['acme,globex'] } })).toThrow(
      /^tenants\.values: must list at least one tenant value, none empty, with no comma/,
    );
    expect(() => stackWithWorker({ tenants: { key: 'body.a..b' as 'group' } })).toThrow(/^tenants\.key/);
    expect(() => stackWithWorker({ tenants: { key: 'group', maxInFlight: 11 } })).toThrow(/^tenants\.maxInFlight/);
    expect(() => stackWithWorker({ tenants: { key: 'group', maxInFlight: '150%' } })).toThrow(/^tenants\.maxInFlight/);
    expect(() => stackWithWorker({ tenants: { key: 'attribute.tenant', prefetch: -1 } })).toThrow(/^tenants\.prefetch/);
  });

  it("alarms on the worst-served tenant's dwell when asked, and graphs the tenants", () => {
    const { stack, queues } = stackWithWorker({ tenants: { key: 'group' } });
    const monitoring = new QueueMonitoring(stack, 'Monitoring', {
      queue: queues.queue,
      deadLetterQueue: queues.deadLetterQueue,
      worstTenantDwellThreshold: Duration.seconds(30),
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 30_000,
      Metrics: [
        Match.objectLike({
          MetricStat: Match.objectLike({
            Stat: 'Maximum',
            Metric: Match.objectLike({ MetricName: MetricName.worstTenantDwell, Dimensions: [Match.objectLike({ Name: 'Queue' })] }),
          }),
        }),
      ],
    });
    expect(monitoring.alarms.worstTenantDwell).toBeDefined();
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain(`MetricName=\\\\\\"${MetricName.tenantDwell}\\\\\\"`);
    expect(body).toContain(MetricName.tenantInFlight);
  });

  it('has no tenant alarm or graphs unless asked', () => {
    const { stack, queues } = stackWithWorker();
    const monitoring = new QueueMonitoring(stack, 'Monitoring', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue });
    expect(monitoring.alarms.worstTenantDwell).toBeUndefined();
    expect(JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'))).not.toContain(MetricName.tenantInFlight);
  });
});
