import { Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as kms from 'aws-cdk-lib/aws-kms';
import { QueueMonitoring, QueueWorkerService, RetryingQueue } from '@requeue/cdk';
import type { Construct } from 'constructs';

export interface OrdersStackProps extends StackProps {
  /** The directory holding the worker's Dockerfile: your Nest app. */
  readonly workerDirectory: string;
}

/** Your stack: your VPC, cluster and key, with requeue's queue, worker and monitoring in it. */
export class OrdersStack extends Stack {
  readonly queueKey: kms.Key;
  readonly worker: QueueWorkerService;

  constructor(scope: Construct, id: string, props: OrdersStackProps) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: { all: {} } });
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    this.queueKey = new kms.Key(this, 'QueueKey', { enableKeyRotation: true, description: 'Encrypts the orders queues' });

    const orders = new RetryingQueue(this, 'Orders', { queueName: 'orders', encryptionKey: this.queueKey });
    const emails = new RetryingQueue(this, 'Emails', { queueName: 'emails', encryptionKey: this.queueKey });
    this.worker = new QueueWorkerService(this, 'Worker', {
      queue: orders.queue,
      deadLetterQueue: orders.deadLetterQueue,
      cluster,
      image: ecs.ContainerImage.fromAsset(props.workerDirectory),
      environment: {
        PAYMENTS_URL: 'https://payments.example.com',
        EMAIL_QUEUE_URL: emails.queue.queueUrl,
        EMAIL_DLQ_URL: emails.deadLetterQueue.queueUrl,
      },
      // These reach the app through its environment: workerOptionsFromEnv() reads them.
      maxInFlight: 20,
      retryPolicy: { maxAttempts: 3, types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 } } } },
      metricsNamespace: 'Orders',
    });
    // The app's second consumer: the same rights on its own queues (the service scales on orders).
    this.worker.consumeFrom(emails.queue, emails.deadLetterQueue);
    new QueueMonitoring(this, 'Monitoring', {
      topic: orders.topic,
      queue: orders.queue,
      deadLetterQueue: orders.deadLetterQueue,
      service: this.worker.service,
      workerLogGroup: this.worker.logGroup,
      metricsNamespace: this.worker.metricsNamespace,
    });
    new QueueMonitoring(this, 'EmailMonitoring', {
      topic: emails.topic,
      queue: emails.queue,
      deadLetterQueue: emails.deadLetterQueue,
      workerLogGroup: this.worker.logGroup,
      metricsNamespace: this.worker.metricsNamespace,
    });
  }
}
