import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { InfraConfigError } from './errors.js';

/** Where the worker's tasks run, and how they reach SQS. */
export interface WorkerNetworkProps {
  readonly cluster?: ecs.ICluster;
  readonly vpc?: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly assignPublicIp?: boolean;
}

export interface WorkerNetwork {
  cluster: ecs.ICluster;
  vpc: ec2.IVpc;
  vpcSubnets: ec2.SubnetSelection;
  assignPublicIp: boolean;
}

/**
 * The cluster, VPC and subnets of `QueueWorkerService`: the caller's cluster, or a new
 * cluster in the caller's VPC, or a new cluster in a new VPC built to cost nothing idle.
 */
export function resolveWorkerNetwork(scope: Construct, props: WorkerNetworkProps): WorkerNetwork {
  validateWorkerNetwork(props);
  const given = props.cluster?.vpc ?? props.vpc;
  const vpc = given ?? defaultVpc(scope);
  const cluster = props.cluster ?? new ecs.Cluster(scope, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
  return {
    cluster,
    vpc,
    // A VPC of the caller's has its own egress (NAT or endpoints) in private subnets; the
    // VPC made here has public subnets only, so its tasks need a public IP to reach SQS.
    vpcSubnets: props.vpcSubnets ?? { subnetType: given ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PUBLIC },
    assignPublicIp: props.assignPublicIp ?? given === undefined,
  };
}

/** Thrown before anything is added to the tree, so a bad prop leaves no half-built construct. */
export function validateWorkerNetwork(props: WorkerNetworkProps): void {
  if (props.cluster && props.vpc) {
    throw new InfraConfigError('vpc', "cannot be given with cluster: the tasks run in the cluster's own VPC; pass one or the other");
  }
}

function defaultVpc(scope: Construct): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    // A NAT gateway costs more per month than a small fleet of workers; public subnets
    // give tasks outbound access, and the security group admits nothing in.
    natGateways: 0,
    subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
  });
  Validations.of(vpc).acknowledge({
    id: 'AwsSolutions-VPC7',
    reason:
      'This VPC carries only outbound task traffic and its security group admits nothing in; ' +
      'flow logs are billed per GB. Pass a VPC or cluster of your own, with flow logs, when you need them.',
  });
  return vpc;
}
