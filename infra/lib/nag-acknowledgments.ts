import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { QueueWorkerService } from './queue-worker-service.js';
import type { RetryingQueue } from './retrying-queue.js';

/** The parts of the stack whose findings are acknowledged. */
export interface AcknowledgedParts {
  retryingQueue: RetryingQueue;
  worker: QueueWorkerService | undefined;
}

/**
 * The cdk-nag AwsSolutions findings this stack accepts, each with its reason. Every other
 * finding fails synth: `createRequeueApp` registers the pack through `Validations`.
 */
export function acknowledgeNagFindings(stack: AcknowledgedParts): void {
  const acknowledge = (scope: IConstruct | undefined, id: string, reason: string) => {
    if (scope) Validations.of(scope).acknowledge({ id, reason });
  };
  acknowledge(
    stack.retryingQueue.undeliverableQueue,
    'AwsSolutions-SQS3',
    'This queue is itself a dead-letter queue: the SNS subscription redrives undeliverable notifications into it, which the rule does not recognise.',
  );
  const worker = stack.worker;
  if (!worker) return;
  acknowledge(
    worker.node.tryFindChild('Vpc'),
    'AwsSolutions-VPC7',
    'The default VPC carries only outbound task traffic and its security group admits nothing in; flow logs are billed per GB. Pass a VPC with flow logs through the `vpc` prop when you need them.',
  );
  acknowledge(
    worker.node.findChild('Task'),
    'AwsSolutions-ECS2',
    'The environment holds non-secret configuration only: queue URLs, handler name, retry policy, metrics namespace. Secrets belong in ecs.Secret.',
  );
  acknowledge(
    worker.node.findChild('Task').node.tryFindChild('ExecutionRole'),
    'AwsSolutions-IAM5[Resource::*]',
    'ecr:GetAuthorizationToken, granted by ECS to pull the image, has no resource-level permissions: AWS requires Resource "*" for it.',
  );
}
