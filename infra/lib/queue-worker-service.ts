import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { RetryPolicyJson } from '@requeue/retry';
import { Construct } from 'constructs';
import { backlogPerTask } from './service-metrics.js';
import { workerImageFromRepository } from './worker-image.js';
import { workerNodeOptions } from './worker-node-options.js';
import { resolveSettings, type Settings } from './worker-settings.js';

const HEALTH_PORT = 8080;
export { DEFAULT_METRICS_NAMESPACE } from './worker-settings.js';

export interface QueueWorkerServiceProps {
  /** The queue the worker consumes and requeues retries to. */
  readonly queue: sqs.IQueue;
  /** Where the worker dead-letters. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * The VPC to run in. Tasks need outbound access to SQS, ECR, CloudWatch Logs and
   * whatever the handler calls (webhooks are on the internet), and accept no inbound
   * traffic.
   * @default - a new VPC with public subnets in 2 AZs and no NAT gateway; tasks get a
   * public IP and a security group with no ingress rule
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The worker image.
   * @default - built from apps/worker/Dockerfile as an asset
   */
  readonly image?: ecs.ContainerImage;
  /**
   * The handler the worker runs (`WORKER_HANDLER`).
   * @default 'webhook'
   */
  readonly handler?: string;
  /**
   * Extra environment, e.g. `WEBHOOK_URL` or `LOG_LEVEL`. Secrets belong in
   * `ecs.Secret`s on a task definition of your own, not here.
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * The retry policy (`RETRY_POLICY`), merged over the shipped preset. Validated at synth.
   * @default - the shipped preset
   */
  readonly retryPolicy?: RetryPolicyJson;
  /**
   * CloudWatch namespace of the worker's EMF metrics (`METRICS_NAMESPACE`).
   * @default 'requeue' (the worker's own default)
   */
  readonly metricsNamespace?: string;
  /**
   * Messages one task handles at once (`WORKER_MAX_IN_FLIGHT`).
   * @default 10
   */
  readonly maxInFlight?: number;
  /**
   * How long a stopping task lets in-flight handlers finish before releasing them
   * (`WORKER_DRAIN_TIMEOUT_MS`). The container's stop timeout is this plus 15 s, and
   * Fargate allows at most 120 s.
   * @default Duration.seconds(30)
   */
  readonly drainTimeout?: Duration;
  /** @default 256 (0.25 vCPU) */
  readonly cpu?: number;
  /**
   * Task memory. The worker's V8 heap is sized from it (`NODE_OPTIONS`, see worker-node-options.ts).
   * @default 512
   */
  readonly memoryLimitMiB?: number;
  /** @default 1 */
  readonly minCapacity?: number;
  /** @default 10 */
  readonly maxCapacity?: number;
  /**
   * Messages (visible + in flight) one task may have queued before the service scales
   * out: the latency you accept divided by the time a message takes.
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

/**
 * The worker on ECS Fargate: a least-privilege task role (receive, delete, change
 * visibility, get attributes and send on the queue; send on the DLQ), a health check on
 * `/health/live`, logs with a retention, and step scaling on backlog per task.
 *
 * Scale-in never kills busy work: ECS sends SIGTERM, the worker stops receiving and
 * lets in-flight handlers finish for `drainTimeout`, releases what is left back to the
 * queue (visibility 0) and exits. The stop timeout is longer than the drain, so SIGKILL
 * only comes for a worker that ignored it, and even then its messages are merely
 * received again after the visibility timeout: nothing is deleted before it succeeded.
 */
export class QueueWorkerService extends Construct {
  readonly service: ecs.FargateService;
  readonly cluster: ecs.Cluster;
  readonly taskRole: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly container: ecs.ContainerDefinition;
  readonly metricsNamespace: string;
  /** (visible + in flight) / running tasks, the metric the service scales on. */
  readonly backlogPerTaskMetric: cloudwatch.IMetric;

  constructor(scope: Construct, id: string, props: QueueWorkerServiceProps) {
    super(scope, id);
    const settings = resolveSettings(props);
    this.metricsNamespace = settings.metricsNamespace;
    const vpc =
      props.vpc ??
      new ec2.Vpc(this, 'Vpc', {
        maxAzs: 2,
        // A NAT gateway costs more per month than a small fleet of workers; public
        // subnets give tasks outbound access, and the security group admits nothing in.
        natGateways: 0,
        subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      });
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    this.taskRole = this.buildTaskRole(props);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? 256,
      memoryLimitMiB: settings.memoryLimitMiB,
      taskRole: this.taskRole,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    this.container = this.addWorkerContainer(taskDefinition, props, settings);
    this.service = this.buildService(vpc, taskDefinition, props, settings);
    this.backlogPerTaskMetric = backlogPerTask(props.queue, this.cluster, this.service);
    this.scaleOnBacklog(settings);
  }

  private buildTaskRole(props: QueueWorkerServiceProps): iam.Role {
    const role = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'requeue worker: consume, requeue and dead-letter, nothing else',
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        // SendMessage on the queue itself: a retry is a delayed copy sent before the original is deleted.
        actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:SendMessage'],
        resources: [props.queue.queueArn],
      }),
    );
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.deadLetterQueue.queueArn] }));
    return role;
  }

  private addWorkerContainer(taskDefinition: ecs.FargateTaskDefinition, props: QueueWorkerServiceProps, settings: Settings): ecs.ContainerDefinition {
    return taskDefinition.addContainer('Worker', {
      image: props.image ?? workerImageFromRepository(),
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'worker' }),
      environment: {
        NODE_OPTIONS: workerNodeOptions(settings.memoryLimitMiB),
        ...props.environment,
        WORKER_QUEUE_URL: props.queue.queueUrl,
        WORKER_DLQ_URL: props.deadLetterQueue.queueUrl,
        WORKER_HANDLER: settings.handler,
        RETRY_POLICY: JSON.stringify(settings.retryPolicy),
        METRICS_NAMESPACE: settings.metricsNamespace,
        WORKER_MAX_IN_FLIGHT: String(settings.maxInFlight),
        WORKER_DRAIN_TIMEOUT_MS: String(settings.drainTimeout.toMilliseconds()),
        WORKER_HEALTH_PORT: String(HEALTH_PORT),
      },
      stopTimeout: settings.stopTimeout,
      healthCheck: {
        // The image is node:*-slim, which has no curl; node's fetch does the probe.
        command: ['CMD', 'node', '-e', `fetch('http://127.0.0.1:${HEALTH_PORT}/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(30),
      },
    });
  }

  private buildService(vpc: ec2.IVpc, taskDefinition: ecs.FargateTaskDefinition, props: QueueWorkerServiceProps, settings: Settings): ecs.FargateService {
    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc,
      description: 'requeue worker: outbound only, no ingress',
      allowAllOutbound: true,
    });
    return new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition,
      desiredCount: settings.minCapacity,
      assignPublicIp: props.vpc === undefined,
      vpcSubnets: { subnetType: props.vpc === undefined ? ec2.SubnetType.PUBLIC : ec2.SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [securityGroup],
      // Deployments start new tasks before stopping old ones, so consumption never pauses.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
    });
  }

  private scaleOnBacklog(settings: Settings): void {
    const target = settings.backlogPerTask;
    this.service.autoScaleTaskCount({ minCapacity: settings.minCapacity, maxCapacity: settings.maxCapacity }).scaleOnMetric('ScaleOnBacklogPerTask', {
      metric: this.backlogPerTaskMetric,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      // One task at a time in, faster out the further the backlog is over target.
      scalingSteps: [
        { upper: target / 4, change: -1 },
        { lower: target, change: +1 },
        { lower: target * 2, change: +2 },
        { lower: target * 5, change: +5 },
      ],
      evaluationPeriods: 1,
      cooldown: Duration.minutes(1),
    });
  }
}
