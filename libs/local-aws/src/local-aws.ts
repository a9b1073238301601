import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DEPLOYMENT_PROPS } from '@requeue/infra';
import { startLoopbackEmulator, type LoopbackEmulator } from './loopback-emulator.js';
import { provisionFromTemplate, stackAddresses, type ProvisionedStack } from './provision.js';
import { synthesizeStackTemplate } from './stack-template.js';
import type { CloudFormationTemplate } from './template.js';

export interface LocalAwsOptions {
  /** 0 picks a free port. */
  port: number;
  template: CloudFormationTemplate;
  /** @default 'Requeue' */
  stackName?: string;
  /** @default 'us-east-1' */
  region?: string;
}

export interface LocalAws {
  /** http://127.0.0.1:<port>, for AWS_ENDPOINT_URL. */
  endpoint: string;
  port: number;
  region: string;
  stack: ProvisionedStack;
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

export interface LocalRequeueStack extends LocalAws {
  queueUrl: string;
  dlqUrl: string;
  topicArn: string;
}

/**
 * The requeue stack, synthesized with the deployed props, on a fresh embedded emulator:
 * what `npm start` and the demo run on. `fifo` gives those props a FIFO queue (the
 * `RetryingQueue` FIFO variant, as `npm run demo -- --fifo` shows). Fails, leaving
 * nothing running, if the template lacks the outputs a worker needs.
 */
export async function startLocalRequeueStack(options: Omit<LocalAwsOptions, 'template'> & { fifo?: boolean }): Promise<LocalRequeueStack> {
  const { fifo, ...rest } = options;
  const props = fifo ? { ...DEPLOYMENT_PROPS, queue: { ...DEPLOYMENT_PROPS.queue, fifo: true } } : DEPLOYMENT_PROPS;
  const local = await startLocalAws({ ...rest, template: synthesizeStackTemplate(props) });
  try {
    return { ...local, ...stackAddresses(local.stack) };
  } catch (error) {
    await local.stop();
    throw error;
  }
}
