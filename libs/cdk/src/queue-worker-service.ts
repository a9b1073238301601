import { ArnFormat, CfnElement, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InfraConfigError } from './errors.js';
import { backlogPerTask } from './service-metrics.js';
import { addWorkerContainer } from './worker-container.js';
import { spotInterruptionsMetric, spotStrategy } from './worker-capacity.js';
import { scaleOnBacklog } from './worker-scaling.js';
import { retryStateKeysSecret } from './retry-state-secret.js';
import { resolveWorkerNetwork, validateWorkerNetwork, type WorkerNetwork } from './worker-network.js';
import { resolveSettings, type Settings } from './worker-settings.js';
import { acknowledgeKeyGrants, grantWorkerRights } from './worker-grants.js';
import type { QueueWorkerServiceProps } from './queue-worker-service-props.js';

/**
 * The worker on ECS Fargate: a task role granted through the queues' own `grant*`
 * methods (so a customer-managed KMS key is covered), a health check on `/health/live`,
 * logs with a retention, and target tracking on backlog per task (and a step from zero).
 *
 * Scale-in never kills busy work: ECS sends SIGTERM, the worker stops receiving, lets
 * in-flight handlers finish for `drainTimeout`, releases what is left (visibility 0) and
 * exits. The stop timeout outlasts the drain, so SIGKILL only comes for a worker that
 * ignored it, and even then nothing was deleted before it succeeded.
 */
export class QueueWorkerService extends Construct {
  /** The ECS service. */
  readonly service: ecs.FargateService;
  /** The cluster it runs in: the one given, or one created with its own VPC. */
  readonly cluster: ecs.ICluster;
  /**
   * The role the worker's code runs as: granted the queues, and the tables and secret when given.
   */
  readonly taskRole: iam.Role;
  /** Where the worker's logs (and its EMF metrics) go. */
  readonly logGroup: logs.LogGroup;
  /** The worker's container: add environment or secrets here. */
  readonly container: ecs.ContainerDefinition;
  /** The CloudWatch namespace the worker publishes to. */
  readonly metricsNamespace: string;
  /** (visible + in flight) / running tasks, the metric the service scales on. */
  readonly backlogPerTaskMetric: cloudwatch.IMetric;
  /** With `spot`: the service's tasks Fargate Spot reclaimed, per 5 minutes; `QueueMonitoring` graphs it. */
  readonly spotInterruptions: cloudwatch.IMetric | undefined;

  constructor(scope: Construct, id: string, props: QueueWorkerServiceProps) {
    // Props are checked before the construct joins the tree: a bad one leaves nothing behind.
    const settings = resolveSettings(props);
    validateWorkerNetwork(props);
    validateIdempotencyKey(props);
    super(scope, id);
    const network = resolveWorkerNetwork(this, props);
    this.cluster = network.cluster;
    this.metricsNamespace = settings.metricsNamespace;
    this.taskRole = this.buildTaskRole(props);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: settings.cpu,
      memoryLimitMiB: settings.memoryLimitMiB,
      taskRole: this.taskRole,
      runtimePlatform: { cpuArchitecture: props.cpuArchitecture ?? ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    this.container = addWorkerContainer(taskDefinition, {
      ...props,
      logGroup: this.logGroup,
      settings,
      retryStateKeys: retryStateKeysSecret(this, props.retryStateKeys),
    });
    acknowledgeTaskFindings(taskDefinition);
    this.service = this.buildService(network, taskDefinition, settings, props.spot && spotStrategy(props.spot, this.cluster));
    this.spotInterruptions = props.spot ? spotInterruptionsMetric(this, this.cluster, this.service) : undefined;
    if (props.taskProtection !== false) this.allowTaskProtection();
    this.backlogPerTaskMetric = backlogPerTask(props.queue, this.cluster, this.service);
    scaleOnBacklog(this, {
      queue: props.queue,
      cluster: this.cluster,
      service: this.service,
      minCapacity: settings.minCapacity,
      maxCapacity: settings.maxCapacity,
      targetBacklogPerTask: settings.backlogPerTask,
    });
  }

  /**
   * Another queue this service's app consumes (a second consumer in the same process): the
   * task role gets on it what it has on its own queue and DLQ, KMS included. Scaling still
   * follows the service's own queue.
   */
  consumeFrom(queue: sqs.IQueue, deadLetterQueue: sqs.IQueue): void {
    grantWorkerRights(this.taskRole, queue, deadLetterQueue);
  }

  /**
   * `ecs:UpdateTaskProtection` on the cluster's tasks: IAM can name a task only by its ARN,
   * which exists once the task runs, so the cluster is as narrow as a policy can be.
   */
  private allowTaskProtection(): void {
    const tasks = Stack.of(this).formatArn({
      service: 'ecs',
      resource: 'task',
      resourceName: `${this.cluster.clusterName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    this.taskRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ecs:UpdateTaskProtection'], resources: [tasks] }));
    // cdk-nag names the resource with a reference as <LogicalId>; an imported cluster's name is plain text.
    const cfnCluster = this.cluster.node.defaultChild as CfnElement | undefined;
    const clusterName = cfnCluster instanceof CfnElement ? `<${Stack.of(cfnCluster).getLogicalId(cfnCluster)}>` : this.cluster.clusterName;
    Validations.of(this.taskRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/${clusterName}/*]`,
      reason:
        'ecs:UpdateTaskProtection for the worker to protect itself while busy: ' +
        "a task ARN is known only once the task runs, so the cluster's tasks are the narrowest resource IAM allows.",
    });
  }

  /** The worker's rights on its queues (`grantWorkerRights`), and on the tables when given. */
  private buildTaskRole(props: QueueWorkerServiceProps): iam.Role {
    const role = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'requeue worker: consume, requeue and dead-letter, nothing else',
    });
    grantWorkerRights(role, props.queue, props.deadLetterQueue);
    props.idempotencyTable?.grantRecords(role);
    props.fleetStateTable?.grantReports(role);
    acknowledgeKeyGrants(role);
    return role;
  }

  private buildService(
    network: WorkerNetwork,
    taskDefinition: ecs.FargateTaskDefinition,
    settings: Settings,
    capacityProviderStrategies: ecs.CapacityProviderStrategy[] | undefined,
  ): ecs.FargateService {
    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: network.vpc,
      description: 'requeue worker: outbound only, no ingress',
      allowAllOutbound: true,
    });
    return new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition,
      desiredCount: settings.minCapacity,
      assignPublicIp: network.assignPublicIp,
      vpcSubnets: network.vpcSubnets,
      securityGroups: [securityGroup],
      // Deployments start new tasks before stopping old ones, so consumption never pauses.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      ...(capacityProviderStrategies ? { capacityProviderStrategies } : {}),
    });
  }
}

/**
 * The cdk-nag AwsSolutions findings this construct's design implies, acknowledged with
 * their reasons through CDK's own `Validations`, so an app checking with cdk-nag sees only
 * its own findings and this package never imports cdk-nag.
 */
function acknowledgeTaskFindings(taskDefinition: ecs.FargateTaskDefinition): void {
  Validations.of(taskDefinition).acknowledge({
    id: 'AwsSolutions-ECS2',
    reason: 'The environment holds non-secret configuration: queue URLs, retry policy, metrics namespace, limits. Secrets go through the `secrets` prop.',
  });
  if (taskDefinition.executionRole) {
    Validations.of(taskDefinition.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ecr:GetAuthorizationToken, granted by ECS to pull the image, has no resource-level permissions: AWS requires Resource "*" for it.',
    });
  }
}

/** `idempotencyKey` as the worker reads `WORKER_IDEMPOTENCY_KEY`, and only beside a table. */
function validateIdempotencyKey({ idempotencyKey, idempotencyTable }: QueueWorkerServiceProps): void {
  if (idempotencyKey === undefined) return;
  if (!idempotencyTable) throw new InfraConfigError('idempotencyKey', 'is set without idempotencyTable: give the table the records go to');
  if (idempotencyKey !== 'message' && !/^body(\.[^.]+)+$/.test(idempotencyKey)) {
    throw new InfraConfigError('idempotencyKey', `must be message or a path into the body such as body.orderId, got ${JSON.stringify(idempotencyKey)}`);
  }
}
