import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { withoutSdkCallLogging } from './sdk-call-logging.js';

/** Answers every call with an empty GetQueueAttributes result, without a network. */
const cannedHandler = {
  handle: async () => ({
    response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{"Attributes":{}}')]) },
  }),
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
};

function clientWithLogger() {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestHandler: cannedHandler,
    logger,
  });
  return { client, logger };
}

const call = (client: SQSClient) => client.send(new GetQueueAttributesCommand({ QueueUrl: 'http://127.0.0.1:1/000000000000/q', AttributeNames: ['All'] }));

describe('withoutSdkCallLogging', () => {
  it('stops the SDK filtering and logging every call, while calls still work', async () => {
    const plain = clientWithLogger();
    await call(plain.client);
    // The SDK's default: a filtered copy of each call handed to logger.info.
    expect(plain.logger.info).toHaveBeenCalledTimes(1);

    const trimmed = clientWithLogger();
    expect(withoutSdkCallLogging(trimmed.client)).toBe(trimmed.client);
    await expect(call(trimmed.client)).resolves.toMatchObject({ Attributes: {} });
    expect(trimmed.logger.info).not.toHaveBeenCalled();
  });
});
