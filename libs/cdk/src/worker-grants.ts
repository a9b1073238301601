import { Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/**
 * Consume and send on the queue (a retry is a delayed copy sent before the original is
 * deleted), send on the DLQ. The grant methods add the KMS actions when a queue has a
 * customer-managed key.
 */
export function grantWorkerRights(role: iam.IGrantable, queue: sqs.IQueue, deadLetterQueue: sqs.IQueue): void {
  queue.grantConsumeMessages(role);
  queue.grantSendMessages(role);
  deadLetterQueue.grantSendMessages(role);
}

/** The cdk-nag findings the KMS grants on a customer-managed key imply, acknowledged with their reason. */
export function acknowledgeKeyGrants(role: IConstruct): void {
  for (const action of ['kms:GenerateDataKey*', 'kms:ReEncrypt*']) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason: `Granted by grantSendMessages on a queue with a customer-managed key; ${action} is limited to that key's ARN.`,
    });
  }
}
