import { Duration, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InfraConfigError } from './errors.js';

/** SQS keeps a message at most 14 days; both queues keep it that long. */
const FOURTEEN_DAYS = Duration.days(14);

export interface RetryingQueueProps {
  /**
   * The main queue's name. The DLQ is `<queueName>-dlq` and the subscription's
   * dead-letter queue `<queueName>-undeliverable`. A fixed name lets the DLQ's redrive
   * allow policy name its source without a circular reference.
   * @default `<stack name>-jobs`
   */
  readonly queueName?: string;
  /**
   * How long a received message stays hidden. The worker extends it with a heartbeat
   * while a handler runs, so this only needs to cover one heartbeat interval.
   * @default Duration.seconds(60)
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Receives after which SQS itself moves a message to the DLQ. This is only the crash
   * backstop: retries and dead-letters are the worker's decision, made on the first
   * receive that fails. See `DEFAULT_MAX_RECEIVE_COUNT`.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * SNS delivers the published message as the SQS body, untouched. With `false` the body
   * is the SNS JSON envelope; the worker unwraps both.
   * @default true
   */
  readonly rawMessageDelivery?: boolean;
  /**
   * Only notifications matching this filter reach the queue. For example, an allowlist
   * of operations: `{ operation: sns.SubscriptionFilter.stringFilter({ allowlist: ['create', 'update', 'delete'] }) }`.
   * @default - every notification is delivered
   */
  readonly filterPolicy?: Record<string, sns.SubscriptionFilter>;
}

/**
 * Why 5: the worker never relies on redrive for retries, so `maxReceiveCount` only
 * counts receives that ended without a decision: a crash, a kill, a lost long poll.
 * One or two of those happen to healthy messages during deploys and scale-in, so 2 would
 * dead-letter good work; a poison pill that crashes every worker it reaches is stopped
 * after 5 crashes instead of taking the fleet down indefinitely.
 */
export const DEFAULT_MAX_RECEIVE_COUNT = 5;

/**
 * The SNS topic producers publish to, the main queue the worker consumes, its DLQ with
 * redrive, and a dead-letter queue for notifications SNS could not deliver. Every queue
 * and topic is encrypted and refuses non-TLS requests.
 */
export class RetryingQueue extends Construct {
  readonly topic: sns.Topic;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** Where SNS puts notifications it could not deliver to `queue`. */
  readonly undeliverableQueue: sqs.Queue;
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: RetryingQueueProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    const queueName = props.queueName ?? `${stack.stackName}-jobs`;
    this.maxReceiveCount = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
    const visibilityTimeout = props.visibilityTimeout ?? Duration.seconds(60);
    validate(queueName, this.maxReceiveCount, visibilityTimeout);

    const encrypted = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: FOURTEEN_DAYS };
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      ...encrypted,
      queueName: `${queueName}-dlq`,
      // Only the main queue may use this DLQ. Its ARN is built from its name rather than
      // referenced, because the main queue already references this queue.
      redriveAllowPolicy: {
        redrivePermission: sqs.RedrivePermission.BY_QUEUE,
        sourceQueues: [sqs.Queue.fromQueueArn(this, 'SourceQueue', stack.formatArn({ service: 'sqs', resource: queueName }))],
      },
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...encrypted,
      queueName,
      visibilityTimeout,
      receiveMessageWaitTime: Duration.seconds(20),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
    this.undeliverableQueue = new sqs.Queue(this, 'UndeliverableQueue', { ...encrypted, queueName: `${queueName}-undeliverable` });

    // The AWS-managed SNS key: producers in the account can publish with sns:Publish
    // alone, with no KMS grant to manage.
    this.topic = new sns.Topic(this, 'Topic', {
      masterKey: kms.Alias.fromAliasName(this, 'SnsManagedKey', 'alias/aws/sns'),
      enforceSSL: true,
    });
    this.topic.addSubscription(
      new subscriptions.SqsSubscription(this.queue, {
        rawMessageDelivery: props.rawMessageDelivery ?? true,
        filterPolicy: props.filterPolicy,
        deadLetterQueue: this.undeliverableQueue,
      }),
    );
  }
}

function validate(queueName: string, maxReceiveCount: number, visibilityTimeout: Duration): void {
  // SQS limits: names of 1-80 characters, maxReceiveCount 1-1000, visibility 0-12 h.
  if (!/^[A-Za-z0-9_-]{1,66}$/.test(queueName)) {
    throw new InfraConfigError('queueName', `must be 1-66 letters, digits, '-' or '_' (room for the "-undeliverable" suffix), got ${JSON.stringify(queueName)}`);
  }
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000) {
    throw new InfraConfigError('maxReceiveCount', `must be a whole number from 1 to 1000, got ${maxReceiveCount}`);
  }
  const seconds = visibilityTimeout.toSeconds({ integral: false });
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200) {
    throw new InfraConfigError('visibilityTimeout', `must be whole seconds from 0 to 12 hours (the SQS limit), got ${seconds} s`);
  }
}
