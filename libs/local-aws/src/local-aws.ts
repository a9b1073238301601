import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startLoopbackEmulator, type LoopbackEmulator } from './loopback-emulator.js';
import { provisionFromTemplate, stackAddresses, type ProvisionedStack } from './provision.js';
import type { CloudFormationTemplate } from './template.js';

/** What `startLocalAws` runs and provisions. */
export interface LocalAwsOptions {
  /** 0 picks a free port. */
  port: number;
  /** The synthesized stack (`readStackTemplate('cdk.out/<Stack>.template.json')`). */
  template: CloudFormationTemplate;
  /** @default 'Requeue' */
  stackName?: string;
  /** @default 'us-east-1' */
  region?: string;
}

/** A running emulator and what was provisioned on it. */
export interface LocalAws {
  /** http://127.0.0.1:<port>, for AWS_ENDPOINT_URL. */
  endpoint: string;
  /** The port it listens on. */
  port: number;
  /** The region its queue URLs and ARNs name. */
  region: string;
  /** The queues, topics, subscriptions, outputs and container environments, resolved locally. */
  stack: ProvisionedStack;
  /** Stops the emulator; its queues and messages are gone. */
  stop(): Promise<void>;
}

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Starts the embedded SQS/SNS emulator (fauxqs) on 127.0.0.1 and provisions it from a
 * synthesized stack template.
 */
export async function startLocalAws(options: LocalAwsOptions): Promise<LocalAws> {
  const server: LoopbackEmulator = await startLoopbackEmulator(options.port);
  const region = options.region ?? 'us-east-1';
  const { endpoint } = server;
  const sqs = new SQSClient({ endpoint, region, credentials });
  const sns = new SNSClient({ endpoint, region, credentials });
  try {
    const stack = await provisionFromTemplate({ sqs, sns, template: options.template, stackName: options.stackName });
    return { endpoint, port: server.port, region, stack, stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    sqs.destroy();
    sns.destroy();
  }
}

/** A requeue stack on the emulator, with the addresses its outputs name. */
export interface LocalRequeueStack extends LocalAws {
  /** The `QueueUrl` output. */
  queueUrl: string;
  /** The `DLQUrl` output. */
  dlqUrl: string;
  /** The `TopicArn` output. */
  topicArn: string;
}

/**
 * A requeue stack's template (the caller synthesizes it, e.g. `requeueStackTemplate()` in
 * this repository's CDK app) on a fresh embedded emulator: what `npm start` and the demo
 * run on. Fails, leaving nothing running, if the template lacks the outputs a worker needs.
 */
export async function startLocalRequeueStack(options: LocalAwsOptions): Promise<LocalRequeueStack> {
  const local = await startLocalAws(options);
  try {
    return { ...local, ...stackAddresses(local.stack) };
  } catch (error) {
    await local.stop();
    throw error;
  }
}
