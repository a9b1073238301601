import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { SNS_SUBSCRIPTIONS_SQS_DECRYPTION_POLICY } from 'aws-cdk-lib/cx-api';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RESERVED_BYTES } from '@requeue/retry/engine';
import { InfraConfigError } from './errors.js';
import { wholeNumber } from './validation.js';

/** SQS keeps a message at most 14 days; both queues keep it that long. */
const FOURTEEN_DAYS = Duration.days(14);

/** The queue, DLQ and topic's settings; every prop has a default fit for production. */
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
  /**
   * FIFO: an SNS FIFO topic in front of a FIFO queue and a FIFO DLQ, with content-based
   * deduplication. Order holds within a message group; the worker retries by visibility
   * timeout (FIFO has no per-message delay) and never runs a group's later messages
   * before a failed one is settled. Queue names get the `.fifo` suffix SQS requires.
   * @default false
   */
  readonly fifo?: boolean;
  /**
   * FIFO high throughput: deduplication and the throughput limit per message group
   * (`DeduplicationScope: messageGroup`, `FifoThroughputLimit: perMessageGroupId`).
   * Only with `fifo`.
   * @default false
   */
  readonly highThroughput?: boolean;
  /**
   * A customer-managed KMS key for the three queues. SNS is allowed to use it for
   * delivery, and `QueueWorkerService`'s grants cover it.
   * @default - SQS-managed encryption (SSE-SQS)
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * What happens to the three queues, and the messages in them, when the stack is deleted
   * or a change replaces a queue (a new name, FIFO on or off). Retained by default: the
   * DLQ holds up to 14 days of dead letters an operator still has to inspect, and the main
   * queue the work not yet done. `RemovalPolicy.DESTROY` suits throwaway stacks.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Why 5: the worker never relies on redrive for retries, so `maxReceiveCount` only
 * counts receives that ended without a decision: a crash, a kill, a lost long poll.
 * One or two of those happen to healthy messages during deploys and scale-in, so 2 would
 * dead-letter good work; a poison pill that crashes every worker it reaches is stopped
 * after 5 crashes instead of taking the fleet down indefinitely.
 */
export const DEFAULT_MAX_RECEIVE_COUNT = 5;

/** SQS's largest `MaximumMessageSize`: the DLQ's. */
const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/**
 * Why 30 on FIFO: there every retry is a receive (the visibility transport), so the
 * backstop must sit above the shipped 20 attempts, with room for crashes and for the
 * messages handed back behind a failed head of their group, whose receives count too.
 */
export const DEFAULT_FIFO_MAX_RECEIVE_COUNT = 30;

/**
 * The SNS topic producers publish to, the main queue the worker consumes, its DLQ with
 * redrive, and a dead-letter queue for notifications SNS could not deliver. Every queue
 * and topic is encrypted and refuses non-TLS requests.
 * Numeric props may be tokens; validation skips what is known only at deploy.
 */
export class RetryingQueue extends Construct {
  /** The topic producers publish to. */
  readonly topic: sns.Topic;
  /** The queue the worker consumes, subscribed to the topic. */
  readonly queue: sqs.Queue;
  /** Its dead-letter queue, the redrive target. */
  readonly deadLetterQueue: sqs.Queue;
  /** Where SNS puts notifications it could not deliver to `queue`. */
  readonly undeliverableQueue: sqs.Queue;
  /** The redrive backstop: receives after which SQS moves a message to the DLQ itself. */
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: RetryingQueueProps = {}) {
    super(scope, id);
    // With a customer-managed key, SNS's use of it is limited to this topic (aws:SourceArn)
    // whatever the app's own feature flags say; context must be set before any child exists.
    this.node.setContext(SNS_SUBSCRIPTIONS_SQS_DECRYPTION_POLICY, true);
    const stack = Stack.of(this);
    const queueName = props.queueName ?? `${stack.stackName}-jobs`;
    const fifo = props.fifo ?? false;
    this.maxReceiveCount = props.maxReceiveCount ?? (fifo ? DEFAULT_FIFO_MAX_RECEIVE_COUNT : DEFAULT_MAX_RECEIVE_COUNT);
    const visibilityTimeout = props.visibilityTimeout ?? Duration.seconds(60);
    validate(queueName, this.maxReceiveCount, visibilityTimeout, fifo);
    if (props.highThroughput && !fifo) throw new InfraConfigError('highThroughput', 'applies to FIFO queues only: set fifo: true as well');
    // SQS requires the suffix on every FIFO queue's name.
    const named = (name: string) => (fifo ? `${name}.fifo` : name);

    const encrypted = {
      ...(props.encryptionKey
        ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey }
        : { encryption: sqs.QueueEncryption.SQS_MANAGED }),
      enforceSSL: true,
      retentionPeriod: FOURTEEN_DAYS,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(fifo ? { fifo: true, contentBasedDeduplication: true } : {}),
    };
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      ...encrypted,
      queueName: named(`${queueName}-dlq`),
      maxMessageSizeBytes: SQS_MAX_MESSAGE_BYTES,
      // Only the main queue may use this DLQ. Its ARN is built from its name rather than
      // referenced, because the main queue already references this queue.
      redriveAllowPolicy: {
        redrivePermission: sqs.RedrivePermission.BY_QUEUE,
        sourceQueues: [sqs.Queue.fromQueueArn(this, 'SourceQueue', stack.formatArn({ service: 'sqs', resource: named(queueName) }))],
      },
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...encrypted,
      queueName: named(queueName),
      // Room under the DLQ's limit for what a dead letter carries beside the message: its
      // reason (`x-dead-letter`) and retry state. A retry copy of a message this large
      // cannot carry x-retry either, and waits by visibility instead.
      maxMessageSizeBytes: SQS_MAX_MESSAGE_BYTES - RESERVED_BYTES,
      visibilityTimeout,
      ...(props.highThroughput
        ? { deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP, fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID }
        : {}),
      receiveMessageWaitTime: Duration.seconds(20),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
    // A FIFO subscription's dead-letter queue must be FIFO too.
    this.undeliverableQueue = new sqs.Queue(this, 'UndeliverableQueue', { ...encrypted, queueName: named(`${queueName}-undeliverable`) });
    Validations.of(this.undeliverableQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue: the SNS subscription redrives undeliverable notifications into it, which the rule does not recognise.',
    });

    // The AWS-managed SNS key: producers in the account can publish with sns:Publish
    // alone, with no KMS grant to manage.
    this.topic = new sns.Topic(this, 'Topic', {
      masterKey: kms.Alias.fromAliasName(this, 'SnsManagedKey', 'alias/aws/sns'),
      enforceSSL: true,
      // Only a FIFO topic can deliver to a FIFO queue; publishers then give a MessageGroupId.
      ...(fifo ? { fifo: true, contentBasedDeduplication: true } : {}),
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

function validate(queueName: string, maxReceiveCount: number, visibilityTimeout: Duration, fifo: boolean): void {
  // SQS limits: names of 1-80 characters, maxReceiveCount 1-1000, visibility 0-12 h.
  // A token is known only at deploy, and CloudFormation checks it then.
  const longest = fifo ? 61 : 66;
  if (!Token.isUnresolved(queueName) && !new RegExp(`^[A-Za-z0-9_-]{1,${longest}}$`).test(queueName)) {
    const room = fifo ? 'room for the "-undeliverable.fifo" suffix; no ".fifo" of your own' : 'room for the "-undeliverable" suffix';
    throw new InfraConfigError('queueName', `must be 1-${longest} letters, digits, '-' or '_' (${room}), got ${JSON.stringify(queueName)}`);
  }
  wholeNumber('maxReceiveCount', maxReceiveCount, 1, 1000);
  const seconds = visibilityTimeout.toSeconds({ integral: false });
  if (!Token.isUnresolved(seconds) && (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200)) {
    throw new InfraConfigError('visibilityTimeout', `must be whole seconds from 0 to 12 hours (the SQS limit), got ${seconds} s`);
  }
}
