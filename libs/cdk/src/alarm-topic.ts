import { Aws, Lazy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

const CLOUDWATCH = new iam.ServicePrincipal('cloudwatch.amazonaws.com');

/** Only this account's alarms: the confused-deputy guard for a service principal. */
const THIS_ACCOUNT = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } };

/**
 * An alarm topic encrypted with a rotating customer-managed key, which CloudWatch needs:
 * it cannot publish through the AWS-managed SNS key. The key lets CloudWatch use it for
 * this account's alarms in this region only. Their exact ARNs cannot be named here: the
 * key policy lives on the key, which the topic and so the alarms depend on.
 */
export function createAlarmTopic(scope: Construct): sns.Topic {
  const key = new kms.Key(scope, 'AlarmTopicKey', { enableKeyRotation: true, description: 'Encrypts the requeue alarm topic' });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [CLOUDWATCH],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: {
        ...THIS_ACCOUNT,
        ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
      },
    }),
  );
  return new sns.Topic(scope, 'AlarmTopic', { masterKey: key, enforceSSL: true });
}

/**
 * Lets CloudWatch publish these alarms' notifications to the topic. A topic policy
 * replaces SNS's default one, and a service principal has no identity policy, so without
 * this statement CloudWatch's publishes are denied and no alarm is ever delivered. The
 * ARNs are read at synth, so alarms added after this call are covered too. On an imported
 * topic this does nothing: its owner's policy must allow CloudWatch.
 */
export function allowAlarmsToPublish(topic: sns.ITopic, alarmArns: () => string[]): void {
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsPublish',
      principals: [CLOUDWATCH],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { ...THIS_ACCOUNT, ArnLike: { 'aws:SourceArn': Lazy.list({ produce: alarmArns }) } },
    }),
  );
}
