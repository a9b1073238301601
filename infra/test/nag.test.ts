import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { createRequeueApp } from '../lib/index.js';

describe('cdk-nag AwsSolutions', () => {
  it('synthesizes the deployed app with zero unacknowledged findings', () => {
    const { app } = createRequeueApp();
    expect(() => app.synth()).not.toThrow();
  });

  it('stays clean with the idempotency and fleet state tables on', () => {
    const { app } = createRequeueApp({ idempotency: { key: 'body.id' }, fleetState: true });
    expect(() => app.synth()).not.toThrow();
  });

  it('fails synth on a finding nobody acknowledged, naming the rule and the resource', () => {
    const { app, stack } = createRequeueApp();
    // A queue without a DLQ and without TLS enforcement.
    new sqs.Queue(stack, 'Careless', { encryption: sqs.QueueEncryption.SQS_MANAGED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS3[\s\S]*Careless|Careless[\s\S]*AwsSolutions-SQS3/);
  });
});
