import { CreateQueueCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { CheckError, run } from './run.mjs';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'us-east-1';

/**
 * Invokes the installed function as Lambda's event source mapping would: one event of the
 * queue's messages, as Lambda shapes them, and a context with 30 s left. Prints the batch
 * response. Written into the scratch app, so it loads the packages the app installed.
 */
const INVOKE = `
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { handler } from './dist/handler.js';
const sqs = new SQSClient({});
const queueUrl = process.env.WORKER_QUEUE_URL;
const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes.QueueArn;
const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }));
const Records = Messages.map((m) => ({ messageId: m.MessageId, receiptHandle: m.ReceiptHandle, body: m.Body, attributes: m.Attributes, messageAttributes: {}, md5OfBody: m.MD5OfBody, eventSource: 'aws:sqs', eventSourceARN: arn, awsRegion: '${region}' }));
const started = Date.now();
const response = await handler({ Records }, { getRemainingTimeInMillis: () => 30_000 - (Date.now() - started), awsRequestId: 'check' }, () => undefined);
console.log(JSON.stringify({ records: Records.length, response }));
`;

/**
 * The installed Lambda example: type-checks under strict against `@types/aws-lambda`'s
 * `SQSHandler`, then handles one event against the emulator: a delivery that succeeds,
 * one retried (a 503: a delayed copy, reported done) and one dead-lettered (a 400).
 */
export async function checkLambdaApp(appDir, emulator) {
  await run('npx', ['tsc', '-p', '.'], { cwd: appDir });
  await writeFile(join(appDir, 'invoke.mjs'), INVOKE);
  const sqs = new SQSClient({ endpoint: emulator.endpoint, region, credentials });
  const onEmulator = (url) => new URL(new URL(url).pathname, emulator.endpoint).href;
  const create = async (name) => onEmulator((await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl);
  const [queueUrl, dlqUrl] = await Promise.all(['webhooks', 'webhooks-dlq'].map(create));
  const hooks = createServer((request, response) => response.writeHead(Number(request.url.slice(1))).end());
  await new Promise((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const hook = (status) => ({ url: `http://127.0.0.1:${hooks.address().port}/${status}`, payload: { status } });
  try {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [200, 503, 400].map((status, i) => ({ Id: String(i), MessageBody: JSON.stringify(hook(status)) })),
      }),
    );
    const env = {
      PATH: process.env.PATH,
      WORKER_QUEUE_URL: queueUrl,
      WORKER_DLQ_URL: dlqUrl,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SQS: emulator.endpoint,
    };
    const { output } = await run(process.execPath, ['invoke.mjs'], { cwd: appDir, env });
    const result = JSON.parse(output.trim().split('\n').at(-1));
    if (result.records !== 3 || result.response.batchItemFailures.length !== 0)
      throw new CheckError(`the function should take 3 records and report none failed, got ${JSON.stringify(result)}`);
    const dead = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }))).Messages ?? [];
    const record = JSON.parse(dead[0]?.MessageAttributes?.['x-dead-letter']?.StringValue ?? '{}');
    if (dead.length !== 1 || record.reason !== 'non-retryable' || record.errorType !== 'HTTP_4XX')
      throw new CheckError(`the 400 should be the one dead letter (non-retryable, HTTP_4XX), got ${JSON.stringify(dead.map((m) => m.MessageAttributes))}`);
    return { deadLetter: `${record.reason} ${record.errorType}` };
  } finally {
    hooks.close();
    sqs.destroy();
  }
}
