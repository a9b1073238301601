import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { RetryPolicyJson } from '@requeue/retry';
import { Construct } from 'constructs';
import type { IdempotencyTable } from './idempotency-table.js';
import { retryStateKeys } from './retry-state-secret.js';
import { InfraConfigError } from './errors.js';
import { bundledFunction } from './function-bundle.js';
import { wholeNumber } from './validation.js';
import { acknowledgeKeyGrants, grantWorkerRights } from './worker-grants.js';
import { DEFAULT_METRICS_NAMESPACE, validMetricsNamespace, validRetryPolicy } from './worker-settings.js';

/** What `QueueWorkerFunction` runs and how the queue feeds it. */
export interface QueueWorkerFunctionProps {
  /** The queue the function consumes. */
  readonly queue: sqs.IQueue;
  /** Where its dead letters go (`WORKER_DLQ_URL`); the queue's own redrive target. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * Your handler's source file (TypeScript or JavaScript) exporting `handler`, bundled at
   * synth by the CDK's Node.js bundling with the `esbuild` your app installs: one ESM file
   * holding everything it imports, the AWS SDK included, so it runs as tested whatever SDK
   * the runtime carries. Give `entry` or `code`.
   */
  readonly entry?: string;
  /** The function's code, bundled your own way: its handler is `sqsHandler` from `@requeue/lambda`. Give `entry` or `code`. */
  readonly code?: lambda.Code;
  /** With `code`, the handler's `file.export`. @default 'index.handler' */
  readonly handler?: string;
  /** @default Node.js 24 */
  readonly runtime?: lambda.Runtime;
  /** The invocation's limit; handlers stop before it, their messages staying. @default 30 seconds */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /** Records per invocation (1-10, or up to 10,000 on a standard queue with `maxBatchingWindow`). @default 10 */
  readonly batchSize?: number;
  /** How long Lambda gathers records before it invokes. @default - none: invoked with what is there */
  readonly maxBatchingWindow?: Duration;
  /** At most this many invocations at once from this queue (2-1000). @default 10 */
  readonly maxConcurrency?: number;
  /** The retry policy (`RETRY_POLICY`), merged over the shipped preset. Validated at synth. @default - the shipped preset */
  readonly retryPolicy?: RetryPolicyJson;
  /** CloudWatch namespace of the function's EMF metrics (`METRICS_NAMESPACE`). @default 'requeue' */
  readonly metricsNamespace?: string;
  /**
   * The secret holding the `x-retry` HMAC key(s) every invocation shares, read at cold
   * start (`WORKER_RETRY_STATE_KEYS_SECRET`). @default a new secret of 64 random characters
   */
  readonly retryStateKeys?: secretsmanager.ISecret;
  /** Idempotency records (`WORKER_IDEMPOTENCY=dynamodb:<table>`), granted to the function. @default - no idempotency store */
  readonly idempotencyTable?: IdempotencyTable;
  /** More environment for your code. */
  readonly environment?: Record<string, string>;
  /** @default one month */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The worker as a Lambda function: an SQS event source with `ReportBatchItemFailures`,
 * the environment `sqsHandler` reads, a role granted through the queues' own `grant*`
 * methods (a customer-managed key is covered) and its log group, and nothing else. Give
 * `QueueMonitoring` the same queues and `logGroup`: its alarms and dashboard read the
 * metrics and logs the function writes as the worker does.
 */
export class QueueWorkerFunction extends Construct {
  /** The Lambda function. */
  readonly function: lambda.Function;
  /** The role it runs as. */
  readonly role: iam.Role;
  /** Where its logs (and EMF metrics) go. */
  readonly logGroup: logs.LogGroup;
  /** The CloudWatch namespace it publishes to. */
  readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: QueueWorkerFunctionProps) {
    const retryPolicy = validRetryPolicy(props.retryPolicy ?? {});
    const metricsNamespace = validMetricsNamespace(props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE);
    const batchSize = wholeNumber('batchSize', props.batchSize ?? 10, 1, props.maxBatchingWindow ? 10_000 : 10);
    const maxConcurrency = wholeNumber('maxConcurrency', props.maxConcurrency ?? 10, 2, 1000);
    if ((props.entry === undefined) === (props.code === undefined)) {
      const problem =
        props.entry === undefined ? "give the handler's source file as entry (bundled at synth) or your own bundle as code" : 'give entry or code, not both';
      throw new InfraConfigError('entry', problem);
    }
    super(scope, id);
    this.metricsNamespace = metricsNamespace;
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'requeue worker function: consume, requeue, dead-letter and log, nothing else',
    });
    this.logGroup.grantWrite(this.role);
    grantWorkerRights(this.role, props.queue, props.deadLetterQueue);
    acknowledgeKeyGrants(this.role);
    props.idempotencyTable?.grantRecords(this.role);
    const keys = retryStateKeys(this, props.retryStateKeys);
    keys.grantRead(this.role);
    this.function = functionOf(this, props, {
      runtime: props.runtime ?? lambda.Runtime.NODEJS_24_X,
      timeout: props.timeout ?? Duration.seconds(30),
      memorySize: props.memorySize ?? 512,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        WORKER_QUEUE_URL: props.queue.queueUrl,
        WORKER_DLQ_URL: props.deadLetterQueue.queueUrl,
        RETRY_POLICY: JSON.stringify(retryPolicy),
        METRICS_NAMESPACE: metricsNamespace,
        WORKER_RETRY_STATE_KEYS_SECRET: keys.secretArn,
        ...(props.idempotencyTable ? { WORKER_IDEMPOTENCY: `dynamodb:${props.idempotencyTable.table.tableName}` } : {}),
      },
    });
    this.function.addEventSource(
      new SqsEventSource(props.queue, { batchSize, maxBatchingWindow: props.maxBatchingWindow, maxConcurrency, reportBatchItemFailures: true }),
    );
  }
}

/** The function: bundled from `entry`, or made from the `code` given. */
function functionOf(scope: Construct, props: QueueWorkerFunctionProps, settings: Omit<lambda.FunctionProps, 'code' | 'handler'>): lambda.Function {
  if (props.entry !== undefined) return bundledFunction(scope, 'Function', props.entry, settings);
  return new lambda.Function(scope, 'Function', { ...settings, code: props.code!, handler: props.handler ?? 'index.handler' });
}
