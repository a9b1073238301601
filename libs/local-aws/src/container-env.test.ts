import { describe, expect, it } from 'vitest';
import { containerEnvironments } from './container-env.js';
import { TemplateResolver } from './resolve.js';

const resolver = new TemplateResolver({ stackName: 'Requeue', region: 'eu-west-1', accountId: '000000000000' });
resolver.define('Queue', { ref: 'http://127.0.0.1:4566/000000000000/jobs', attributes: { Arn: 'arn:aws:sqs:eu-west-1:000000000000:jobs' } });

describe('containerEnvironments', () => {
  it("gives a worker function's environment as its container's: what resolves locally, and the names of the rest", () => {
    const template = {
      Resources: {
        Queue: { Type: 'AWS::SQS::Queue' },
        Worker: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            Environment: {
              Variables: { WORKER_QUEUE_URL: { Ref: 'Queue' }, RETRY_POLICY: '{"maxAttempts":3}', WORKER_RETRY_STATE_KEYS_SECRET: { Ref: 'Secret' } },
            },
          },
        },
        Task: {
          Type: 'AWS::ECS::TaskDefinition',
          Properties: {
            ContainerDefinitions: [
              { Name: 'worker', Environment: [{ Name: 'WORKER_QUEUE_URL', Value: { Ref: 'Queue' } }], Secrets: [{ Name: 'WORKER_RETRY_STATE_KEYS' }] },
            ],
          },
        },
      },
    };
    expect(containerEnvironments(template, resolver)).toEqual([
      {
        container: 'Worker',
        kind: 'function',
        environment: { WORKER_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/jobs', RETRY_POLICY: '{"maxAttempts":3}' },
        notLocal: ['WORKER_RETRY_STATE_KEYS_SECRET'],
      },
      {
        container: 'Task/worker',
        kind: 'container',
        environment: { WORKER_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/jobs' },
        notLocal: ['WORKER_RETRY_STATE_KEYS'],
      },
    ]);
  });
});
