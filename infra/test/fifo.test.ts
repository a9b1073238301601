import { describe, expect, it } from 'vitest';
import { InfraConfigError } from '@requeue/cdk';
import { createRequeueApp } from '../lib/index.js';
import { resource, synthesize } from './synth.js';

const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

describe('RetryingQueue with fifo: true', () => {
  const template = synthesize({ queue: { fifo: true } });
  const queueOf = (hint: string) => resource(template, 'AWS::SQS::Queue', hint);

  it('makes the queue, the DLQ and the undeliverable queue FIFO, with content-based deduplication', () => {
    expect(queueOf('JobsQueue').Properties).toMatchObject({
      QueueName: 'Requeue-jobs.fifo',
      FifoQueue: true,
      ContentBasedDeduplication: true,
      // Every retry is a receive on FIFO: the backstop sits above the shipped 20 attempts.
      RedrivePolicy: { deadLetterTargetArn: arnOf(queueOf('DeadLetter').logicalId), maxReceiveCount: 30 },
    });
    expect(queueOf('DeadLetter').Properties).toMatchObject({ QueueName: 'Requeue-jobs-dlq.fifo', FifoQueue: true });
    expect(queueOf('Undeliverable').Properties).toMatchObject({ QueueName: 'Requeue-jobs-undeliverable.fifo', FifoQueue: true });
    expect(JSON.stringify(queueOf('DeadLetter').Properties.RedriveAllowPolicy)).toContain('Requeue-jobs.fifo');
  });

  it('puts an SNS FIFO topic in front, with content-based deduplication', () => {
    expect(resource(template, 'AWS::SNS::Topic', 'JobsTopic').Properties).toMatchObject({ FifoTopic: true, ContentBasedDeduplication: true });
  });

  it('turns on high throughput only when asked', () => {
    expect(queueOf('JobsQueue').Properties.DeduplicationScope).toBeUndefined();
    const fast = synthesize({ queue: { fifo: true, highThroughput: true } });
    expect(resource(fast, 'AWS::SQS::Queue', 'JobsQueue').Properties).toMatchObject({
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
  });

  it('refuses high throughput without FIFO, and a name with no room for the suffixes', () => {
    expect(() => synthesize({ queue: { highThroughput: true } })).toThrow(InfraConfigError);
    expect(() => synthesize({ queue: { fifo: true, queueName: 'x'.repeat(62) } })).toThrow(/1-61 letters/);
    expect(() => synthesize({ queue: { fifo: true, queueName: 'jobs.fifo' } })).toThrow(/no "\.fifo" of your own/);
  });

  it('synthesizes with cdk-nag clean', () => {
    const { app } = createRequeueApp({ queue: { fifo: true } });
    expect(() => app.synth()).not.toThrow();
  });
});
