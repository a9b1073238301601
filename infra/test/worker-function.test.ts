import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { QueueMonitoring, QueueWorkerFunction, RetryingQueue, type QueueWorkerFunctionProps } from '@requeue/cdk';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';

const CODE = lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });');

/** A queue with its DLQ (under a customer-managed key), the function on it, and its monitoring, in an app checked by cdk-nag. */
function functionStack(props: Partial<QueueWorkerFunctionProps> = {}) {
  const app = new App();
  const stack = new Stack(app, 'Webhooks');
  const queues = new RetryingQueue(stack, 'Hooks', { queueName: 'hooks', encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }) });
  const worker = new QueueWorkerFunction(stack, 'Worker', { queue: queues.queue, deadLetterQueue: queues.deadLetterQueue, code: CODE, ...props });
  new QueueMonitoring(stack, 'Monitoring', {
    queue: queues.queue,
    deadLetterQueue: queues.deadLetterQueue,
    workerLogGroup: worker.logGroup,
    workerFunction: worker.function,
    metricsNamespace: worker.metricsNamespace,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, queues, worker };
}

describe('QueueWorkerFunction', () => {
  it('wires the function to the queue with partial batch responses, batch size and maximum concurrency', () => {
    const { stack } = functionStack({ batchSize: 5, maxConcurrency: 20, retryPolicy: { maxAttempts: 4 }, metricsNamespace: 'Hooks' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 20 },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HooksQueue'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Timeout: 30,
      Environment: {
        Variables: Match.objectLike({
          WORKER_QUEUE_URL: { Ref: Match.stringLikeRegexp('^HooksQueue') },
          WORKER_DLQ_URL: { Ref: Match.stringLikeRegexp('^HooksDeadLetterQueue') },
          RETRY_POLICY: '{"maxAttempts":4}',
          METRICS_NAMESPACE: 'Hooks',
          WORKER_RETRY_STATE_KEYS_SECRET: { Ref: Match.stringLikeRegexp('^WorkerRetryStateKeys') },
        }),
      },
    });
    // Least privilege: its own role, no managed policy, logs to its own group.
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })] }),
      ManagedPolicyArns: Match.absent(),
    });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const action of [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:SendMessage',
      'sqs:DeleteMessage',
      'secretsmanager:GetSecretValue',
      'logs:PutLogEvents',
      'kms:Decrypt',
    ])
      expect(policies).toContain(action);
    expect(policies).not.toMatch(/"Action":"\*"|"sqs:\*"/);
  });

  it("synthesizes with cdk-nag clean; the dashboard tables its dead letters from the function's logs and graphs the function", () => {
    const { app, stack } = functionStack();
    expect(() => app.synth()).not.toThrow();
    const [dashboard] = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard);
    for (const title of ['Dead letters by cause', 'Function: invocations, errors, throttles', 'Function: duration (ms)', 'Function: concurrent executions'])
      expect(body).toContain(title);
  });

  it('refuses at synth what Lambda or the worker would refuse, naming the prop', () => {
    expect(() => functionStack({ maxConcurrency: 1 })).toThrow(/^maxConcurrency/);
    expect(() => functionStack({ batchSize: 100 })).toThrow(/^batchSize/);
    expect(() => functionStack({ batchSize: 100, maxBatchingWindow: Duration.seconds(5) })).not.toThrow();
    expect(() => functionStack({ retryPolicy: { maxAttempts: 0 } })).toThrow(/^retryPolicy/);
    expect(() => functionStack({ metricsNamespace: 'AWS/Lambda' })).toThrow(/^metricsNamespace/);
    expect(() => functionStack({ code: undefined })).toThrow(/^entry: give the handler's source file as entry \(bundled at synth\) or your own bundle as code/);
    expect(() => functionStack({ entry: 'src/handler.ts' })).toThrow(/^entry: give entry or code, not both/);
  });
});
