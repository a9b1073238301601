#!/usr/bin/env node
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LocalProvisioningError, provisionFromTemplate, readStackTemplate } from '@requeue/local-aws';
import { requeueStackTemplate } from '../lib/requeue-app.js';

const USAGE = `usage: npm run local:provision [-- --template cdk.out/Requeue.template.json]

Creates the stack's queues, topic and subscription on the emulator at AWS_ENDPOINT_URL
(fauxqs or LocalStack in Docker), from the stack template: synthesized in memory from
infra/lib/deployment-props.ts, or read from --template. Prints the outputs as JSON.`;

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const templateIndex = argv.indexOf('--template');
  const unknown = argv.filter((arg, i) => arg !== '--template' && i !== templateIndex + 1);
  if (unknown.length > 0 || (templateIndex >= 0 && !argv[templateIndex + 1]))
    throw new LocalProvisioningError(`unexpected arguments: ${argv.join(' ')}\n${USAGE}`);
  const endpoint = process.env.AWS_ENDPOINT_URL ?? process.env.AWS_ENDPOINT_URL_SQS;
  if (!endpoint) {
    // Never provision real AWS from here: that is what `cdk deploy` is for.
    throw new LocalProvisioningError('AWS_ENDPOINT_URL is not set: point it at the emulator, e.g. AWS_ENDPOINT_URL=http://127.0.0.1:4566');
  }
  const template = templateIndex >= 0 ? readStackTemplate(argv[templateIndex + 1]!) : requeueStackTemplate();
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const credentials = { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'test', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'test' };
  const sqs = new SQSClient({ endpoint, region, credentials });
  const sns = new SNSClient({ endpoint, region, credentials });
  try {
    const stack = await provisionFromTemplate({ sqs, sns, template });
    process.stdout.write(`${JSON.stringify(stack.outputs, null, 2)}\n`);
  } finally {
    sqs.destroy();
    sns.destroy();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`local:provision: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
