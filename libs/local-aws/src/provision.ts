import { CreateTopicCommand, ListSubscriptionsByTopicCommand, SetSubscriptionAttributesCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { containerEnvironments, type ContainerEnvironment } from './container-env.js';
import { templateEventSources, type TemplateEventSource } from './event-sources.js';
import { TemplateResolver } from './resolve.js';
import { LocalProvisioningError, type CloudFormationTemplate, type TemplateResource } from './template.js';

/** Where to provision, and what. */
export interface ProvisionOptions {
  /** A client of the emulator's (or any) SQS endpoint. */
  sqs: SQSClient;
  /** A client of its SNS endpoint. */
  sns: SNSClient;
  /** The synthesized stack. */
  template: CloudFormationTemplate;
  /** `AWS::StackName` while resolving. @default 'Requeue' */
  stackName?: string;
  /** `AWS::Region`. @default the SQS client's region */
  region?: string;
  /** `AWS::AccountId`; emulators use twelve zeros. @default '000000000000' */
  accountId?: string;
}

/** A queue as provisioned. */
export interface ProvisionedQueue {
  /** Its URL on the endpoint. */
  queueUrl: string;
  /** Its ARN. */
  queueArn: string;
  /** Its name: the template's, or one derived from the stack name and logical id as CloudFormation does. */
  queueName: string;
  /** The SQS attributes applied, as strings, exactly as sent. */
  attributes: Record<string, string>;
}

/** What a template became on the endpoint, by logical id. */
export interface ProvisionedStack {
  /** The queues by logical id. */
  queues: Record<string, ProvisionedQueue>;
  /** The topics by logical id. */
  topics: Record<string, { topicArn: string; topicName: string }>;
  /** The SQS subscriptions by logical id, with the attributes set on them. */
  subscriptions: Record<string, { subscriptionArn: string; attributes: Record<string, string> }>;
  /** Stack outputs that resolve locally (`QueueUrl`, `DLQUrl`, `TopicArn`, ...). */
  outputs: Record<string, string>;
  /** Resource types with no local counterpart (IAM, ECS, CloudWatch, ...) and how many of each. */
  notProvisioned: Record<string, number>;
  /** Each ECS container's environment with the local queue URLs in it: what a worker of yours runs with here. */
  containers: ContainerEnvironment[];
  /** Each Lambda function's SQS event source whose queue is here: what `requeue local --invoke` polls. */
  eventSources: TemplateEventSource[];
}

// CloudFormation queue properties that become SQS attributes of the same name.
const QUEUE_ATTRIBUTES = [
  'VisibilityTimeout',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'DelaySeconds',
  'MaximumMessageSize',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'SqsManagedSseEnabled',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
];
// Properties with no local effect: emulators neither encrypt with KMS nor tag.
const QUEUE_PROPERTIES_WITHOUT_LOCAL_EFFECT = ['QueueName', 'FifoQueue', 'KmsMasterKeyId', 'KmsDataKeyReusePeriodSeconds', 'Tags'];
const SUBSCRIPTION_ATTRIBUTES = ['RawMessageDelivery', 'FilterPolicy', 'FilterPolicyScope', 'RedrivePolicy', 'DeliveryPolicy'];

/**
 * Creates the template's SQS queues, SNS topics and SQS subscriptions on an emulator (or
 * any SQS/SNS endpoint) with the attributes the template gives them, so local runs use
 * the configuration that is deployed. Running it again converges existing queues to the
 * template, as a deploy would.
 */
export async function provisionFromTemplate(options: ProvisionOptions): Promise<ProvisionedStack> {
  const { sqs, sns, template } = options;
  const stackName = options.stackName ?? 'Requeue';
  const region = options.region ?? (await sqs.config.region());
  const context: Provisioning = {
    sqs,
    sns,
    stackName,
    resolver: new TemplateResolver({ stackName, region, accountId: options.accountId ?? '000000000000' }),
    byType: groupByType(template),
    result: { queues: {}, topics: {}, subscriptions: {}, outputs: {}, notProvisioned: {}, containers: [], eventSources: [] },
  };
  await provisionQueues(context);
  await provisionTopics(context);
  await provisionSubscriptions(context);
  const { result, resolver } = context;
  for (const resource of Object.values(template.Resources)) {
    if (!['AWS::SQS::Queue', 'AWS::SNS::Topic', 'AWS::SNS::Subscription'].includes(resource.Type)) {
      result.notProvisioned[resource.Type] = (result.notProvisioned[resource.Type] ?? 0) + 1;
    }
  }
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    try {
      result.outputs[name] = resolver.resolveString(output.Value, `Outputs.${name}`);
    } catch (error) {
      // Outputs of resources with no local counterpart (the dashboard) have no local value.
      if (!(error instanceof LocalProvisioningError)) throw error;
    }
  }
  result.containers = containerEnvironments(template, resolver);
  result.eventSources = templateEventSources(template, resolver, result.queues);
  return result;
}

interface Provisioning {
  sqs: SQSClient;
  sns: SNSClient;
  stackName: string;
  resolver: TemplateResolver;
  byType: (type: string) => [string, TemplateResource][];
  result: ProvisionedStack;
}

async function provisionQueues({ sqs, stackName, resolver, byType, result }: Provisioning): Promise<void> {
  // Queues first, without attributes: a redrive policy refers to another queue's ARN,
  // so every queue must exist before any attribute is resolved.
  for (const [logicalId, resource] of byType('AWS::SQS::Queue')) {
    const properties = resource.Properties ?? {};
    const fifo = properties.FifoQueue === true || properties.FifoQueue === 'true';
    const queueName =
      properties.QueueName !== undefined ? resolver.resolveString(properties.QueueName, `${logicalId}.QueueName`) : physicalName(stackName, logicalId, fifo);
    const created = await sqs.send(new CreateQueueCommand({ QueueName: queueName, Attributes: fifo ? { FifoQueue: 'true' } : undefined }));
    const queueUrl = created.QueueUrl!;
    const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    const queueArn = arn.Attributes!.QueueArn!;
    resolver.define(logicalId, { ref: queueUrl, attributes: { Arn: queueArn, QueueUrl: queueUrl, QueueName: queueName } });
    result.queues[logicalId] = { queueUrl, queueArn, queueName, attributes: {} };
  }
  for (const [logicalId, resource] of byType('AWS::SQS::Queue')) {
    const attributes = attributesOf(resolver, logicalId, resource.Properties ?? {}, QUEUE_ATTRIBUTES, QUEUE_PROPERTIES_WITHOUT_LOCAL_EFFECT);
    const queue = result.queues[logicalId]!;
    if (Object.keys(attributes).length > 0) await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queue.queueUrl, Attributes: attributes }));
    queue.attributes = attributes;
  }
}

async function provisionTopics({ sns, stackName, resolver, byType, result }: Provisioning): Promise<void> {
  for (const [logicalId, resource] of byType('AWS::SNS::Topic')) {
    const properties = resource.Properties ?? {};
    const fifo = properties.FifoTopic === true || properties.FifoTopic === 'true';
    const topicName =
      properties.TopicName !== undefined ? resolver.resolveString(properties.TopicName, `${logicalId}.TopicName`) : physicalName(stackName, logicalId, fifo);
    // A FIFO topic's deduplication decides whether publishers must give an id: it must match.
    const deduplication = properties.ContentBasedDeduplication === true || properties.ContentBasedDeduplication === 'true';
    const attributes = fifo ? { FifoTopic: 'true', ...(deduplication ? { ContentBasedDeduplication: 'true' } : {}) } : undefined;
    const created = await sns.send(new CreateTopicCommand({ Name: topicName, Attributes: attributes }));
    resolver.define(logicalId, { ref: created.TopicArn!, attributes: { TopicArn: created.TopicArn!, TopicName: topicName } });
    result.topics[logicalId] = { topicArn: created.TopicArn!, topicName };
  }
}

async function provisionSubscriptions({ sns, resolver, byType, result }: Provisioning): Promise<void> {
  for (const [logicalId, resource] of byType('AWS::SNS::Subscription')) {
    const properties = resource.Properties ?? {};
    if (properties.Protocol !== 'sqs') {
      // Email, HTTP and Lambda endpoints do not exist locally.
      result.notProvisioned[`AWS::SNS::Subscription (${String(properties.Protocol)})`] =
        (result.notProvisioned[`AWS::SNS::Subscription (${String(properties.Protocol)})`] ?? 0) + 1;
      continue;
    }
    const subscriptionArn = await subscribe(
      sns,
      resolver.resolveString(properties.TopicArn, `${logicalId}.TopicArn`),
      resolver.resolveString(properties.Endpoint, `${logicalId}.Endpoint`),
    );
    const attributes = attributesOf(resolver, logicalId, properties, SUBSCRIPTION_ATTRIBUTES, ['TopicArn', 'Endpoint', 'Protocol', 'Region']);
    for (const [name, value] of Object.entries(attributes)) {
      await sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: name, AttributeValue: value }));
    }
    result.subscriptions[logicalId] = { subscriptionArn, attributes };
  }
}

/**
 * The existing subscription of this queue to this topic, or a new one. Subscribing again
 * with other attributes is an error in SNS, so a persisted emulator reuses what it has and
 * the attributes are then set one by one.
 */
async function subscribe(sns: SNSClient, topicArn: string, queueArn: string): Promise<string> {
  let nextToken: string | undefined;
  do {
    const page = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: nextToken }));
    const existing = page.Subscriptions?.find((subscription) => subscription.Protocol === 'sqs' && subscription.Endpoint === queueArn);
    if (existing?.SubscriptionArn) return existing.SubscriptionArn;
    nextToken = page.NextToken;
  } while (nextToken);
  const created = await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn, ReturnSubscriptionArn: true }));
  return created.SubscriptionArn!;
}

function groupByType(template: CloudFormationTemplate) {
  return (type: string): [string, TemplateResource][] => Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** CloudFormation's own naming, minus its random suffix: `<stack>-<logical id>`, within SQS/SNS's 80 characters. */
function physicalName(stackName: string, logicalId: string, fifo: boolean): string {
  const suffix = fifo ? '.fifo' : '';
  return `${stackName}-${logicalId}`.slice(0, 80 - suffix.length) + suffix;
}

function attributesOf(
  resolver: TemplateResolver,
  logicalId: string,
  properties: Record<string, unknown>,
  applied: string[],
  withoutLocalEffect: string[],
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) {
    if (withoutLocalEffect.includes(name)) continue;
    if (!applied.includes(name)) {
      // A property we do not apply would make local behaviour differ from the deployed one.
      throw new LocalProvisioningError(`${logicalId}.${name} cannot be applied locally; local runs would not match the deployed configuration`);
    }
    const resolved = resolver.resolve(value, `${logicalId}.${name}`);
    attributes[name] = typeof resolved === 'object' && resolved !== null ? JSON.stringify(resolved) : String(resolved);
  }
  return attributes;
}

/** The addresses a worker and a publisher need, from the stack's outputs; an error names any the template lacks. */
export function stackAddresses(stack: ProvisionedStack): { queueUrl: string; dlqUrl: string; topicArn: string } {
  const missing = ['QueueUrl', 'DLQUrl', 'TopicArn'].filter((name) => stack.outputs[name] === undefined);
  if (missing.length > 0) throw new LocalProvisioningError(`the stack template lacks the ${missing.join(', ')} output(s) the worker needs`);
  return { queueUrl: stack.outputs.QueueUrl!, dlqUrl: stack.outputs.DLQUrl!, topicArn: stack.outputs.TopicArn! };
}
