import type { SpotCapacity } from './worker-capacity.js';
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { RetryPolicyJson } from '@requeue/retry';
import type { TenantOptions } from '@requeue/sqs';
import type { FleetStateTable } from './fleet-state-table.js';
import type { IdempotencyTable } from './idempotency-table.js';

/**
 * What `QueueWorkerService` runs: the worker image on the queue, its scaling, and the settings it
 * passes to the worker as environment.
 */
export interface QueueWorkerServiceProps {
  /** The queue the worker consumes and sends its retries to. */
  readonly queue: sqs.IQueue;
  /** Where the worker dead-letters. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * The worker image: your NestJS app with `@requeue/nest`, or any image that reads the
   * worker's environment (docs/contracts.md). For example
   * `ecs.ContainerImage.fromAsset('path/to/app')` or `ecs.ContainerImage.fromEcrRepository(repo, 'v1')`.
   */
  readonly image: ecs.ContainerImage;
  /**
   * The ECS cluster to run in. For scaling on backlog per task, enable Container Insights
   * on it: the running-task count comes from there. Not with `vpc`.
   * @default - a new cluster, with Container Insights, in `vpc`
   */
  readonly cluster?: ecs.ICluster;
  /**
   * The VPC for a new cluster. Tasks need outbound access to SQS, ECR, CloudWatch Logs and
   * whatever the handler calls, and accept no inbound traffic. Not with `cluster`.
   * @default - a new VPC with public subnets in 2 AZs and no NAT gateway
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The subnets the tasks run in.
   * @default - the private subnets with egress of your VPC or cluster; the public subnets of a VPC made here
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Give each task a public IP, needed in public subnets to reach SQS without a NAT gateway.
   * @default - true on a VPC made here, false on yours
   */
  readonly assignPublicIp?: boolean;
  /**
   * The handler the worker runs (`WORKER_HANDLER`), for images that host several.
   * @default - not set; the image decides
   */
  readonly handler?: string;
  /**
   * For a batch handler (`@SqsBatchHandler`, or the worker app's `simulation-batch`): messages
   * per call (`WORKER_BATCH_SIZE`, at most `maxInFlight`) and how long a batch waits for more
   * (`WORKER_BATCH_WINDOW_MS`). A per-message handler ignores them.
   * @default - not set: the batch handler's own (10 messages, 50 ms)
   */
  readonly batch?: WorkerBatchProps;
  /**
   * Extra plain environment, e.g. `LOG_LEVEL`. It overrides nothing of the worker's own.
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * Secrets from Secrets Manager or SSM, e.g. an API key the handler sends.
   * @default - none
   */
  readonly secrets?: Record<string, ecs.Secret>;
  /**
   * The container's health check.
   * @default - node's fetch of `http://127.0.0.1:8080/health/live` (`WORKER_HEALTH_PORT`) every 30 s, as the
   * worker app serves it and a Nest app serves it with `SqsHealthIndicator`
   */
  readonly healthCheck?: ecs.HealthCheck;
  /**
   * Makes the handler idempotent on this table (`WORKER_IDEMPOTENCY=dynamodb:<table>`), with
   * exactly the grants the worker needs on it.
   * @default - off
   */
  readonly idempotencyTable?: IdempotencyTable;
  /**
   * Which key a duplicate shares (`WORKER_IDEMPOTENCY_KEY`): `message`, or a path into the
   * body such as `body.orderId`. Only with `idempotencyTable`.
   * @default 'message'
   */
  readonly idempotencyKey?: string;
  /**
   * Lets the service's tasks share backpressure through this table
   * (`WORKER_FLEET_STATE=dynamodb:<table>`), with UpdateItem on it and nothing more: as
   * the service scales out, its tasks keep together to the rate a dependency admits.
   * @default - each task on its own
   */
  readonly fleetStateTable?: FleetStateTable;
  /**
   * ECS task scale-in protection while handlers run: the worker asks its agent not to be
   * stopped by a scale-in or a deployment while busy, and the task role may
   * `ecs:UpdateTaskProtection` on the cluster's tasks. `false` sets
   * `WORKER_TASK_PROTECTION=off` and grants nothing.
   * @default true
   */
  readonly taskProtection?: boolean;
  /**
   * The secret holding the `x-retry` HMAC key(s) every task shares (`WORKER_RETRY_STATE_KEYS`, comma-separated).
   * @default a new secret of 64 random characters
   */
  readonly retryStateKeys?: secretsmanager.ISecret;
  /**
   * The retry policy (`RETRY_POLICY`), merged over the shipped preset. Validated at synth.
   * @default - the shipped preset
   */
  readonly retryPolicy?: RetryPolicyJson;
  /**
   * CloudWatch namespace of the worker's EMF metrics (`METRICS_NAMESPACE`).
   * @default 'requeue'
   */
  readonly metricsNamespace?: string;
  /**
   * Messages one task handles at once (`WORKER_MAX_IN_FLIGHT`). May be a token. Lower than
   * the engine's own default of 50 on purpose: the default task is 0.25 vCPU, and the
   * service scales out on backlog rather than packing one small task.
   * @default 10
   */
  readonly maxInFlight?: number;
  /**
   * Tenants take turns for each task's handlers (docs/worker.md, Tenants): `key` says where
   * a message's tenant is read (`group` for SQS fair queues' MessageGroupId); `maxInFlight`
   * caps one tenant while another waits; `prefetch` is how far a task reads past one
   * tenant's burst. Sets `WORKER_TENANT_KEY`, `WORKER_TENANT_MAX_IN_FLIGHT` and
   * `WORKER_TENANT_PREFETCH`; give `QueueMonitoring` `tenants: true` for its graphs.
   * @default - off
   */
  readonly tenants?: TenantOptions;
  /**
   * How long a stopping task lets in-flight handlers finish before releasing them
   * (`WORKER_DRAIN_TIMEOUT_MS`). The container's stop timeout is this plus 15 s, and
   * Fargate allows at most 120 s, so it must be a concrete duration. With `spot`, the stop
   * timeout is 120 s, Spot's warning.
   * @default Duration.seconds(30); with `spot`, Duration.seconds(105)
   */
  readonly drainTimeout?: Duration;
  /**
   * Runs tasks on Fargate Spot beside on-demand Fargate (a base on on-demand, the rest by
   * weight), with the container's stop timeout at Spot's 120 s warning and
   * `spotInterruptions` counting reclaimed tasks. A cluster built here gets the Fargate
   * capacity providers; a cluster you pass must have FARGATE and FARGATE_SPOT.
   * @default - on-demand Fargate only
   */
  readonly spot?: SpotCapacity;
  /**
   * The processor the tasks run on. `ARM64` is Graviton, about 20% cheaper per vCPU-hour;
   * the image must be built for it (an asset with `platform: Platform.LINUX_ARM64`, or a
   * multi-architecture image).
   * @default ecs.CpuArchitecture.X86_64
   */
  readonly cpuArchitecture?: ecs.CpuArchitecture;
  /**
   * Task CPU units. May be a token.
   * @default 256 (0.25 vCPU)
   */
  readonly cpu?: number;
  /**
   * Task memory. The worker's V8 heap is sized from it (`NODE_OPTIONS`); with a token Node
   * sizes it from the container's limit.
   * @default 512
   */
  readonly memoryLimitMiB?: number;
  /**
   * Fewest tasks. May be a token.
   * @default 1
   */
  readonly minCapacity?: number;
  /**
   * Most tasks. May be a token.
   * @default 10
   */
  readonly maxCapacity?: number;
  /**
   * Visible messages per running task the service's target tracking keeps: the latency you
   * accept times the task's throughput (`maxInFlight` ÷ the time a message takes). With 10
   * at once, 2 s a message and 20 s acceptable, 100. May be a token.
   * @default 100
   */
  readonly backlogPerTask?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What `cdk destroy` does with the log group.
   * @default RemovalPolicy.DESTROY
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/** A batch handler's batching (`QueueWorkerServiceProps.batch`). */
export interface WorkerBatchProps {
  /**
   * Messages per call of the batch handler, 1–1,000 and at most `maxInFlight`.
   * @default - the handler's own (10)
   */
  readonly size?: number;
  /**
   * How long a batch's first message waits for others, up to 60 s.
   * @default - the handler's own (50 ms)
   */
  readonly window?: Duration;
}
