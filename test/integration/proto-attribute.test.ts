import { RetryableError, NonRetryableError } from '@requeue/retry';
import type { WorkerMessage } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** SQS's JSON protocol, straight: the SDK cannot send or read an attribute named `__proto__` faithfully, a publisher's HTTP client can. */
async function sqsCall(action: string, input: object): Promise<string> {
  const response = await fetch(suite.emulator.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
    body: JSON.stringify(input),
  });
  return response.text();
}

const PROTO = '"__proto__":{"DataType":"String","StringValue":"kept"}';

async function publishWithProto(queues: QueuePair, body: string): Promise<void> {
  const raw = `{"QueueUrl":${JSON.stringify(queues.queueUrl)},"MessageBody":${JSON.stringify(body)},"MessageAttributes":{${PROTO},"tenant":{"DataType":"String","StringValue":"acme"}}}`;
  await fetch(suite.emulator.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
    body: raw,
  });
}

describe('a message attribute named __proto__ (fauxqs, raw SQS JSON)', () => {
  it('reaches the handler and is kept on the retry copy and on the dead letter', async () => {
    const queues = await suite.emulator.createQueues();
    const seen: Array<{ body: string; attempt: number; proto: string | undefined; tenant: string | undefined }> = [];
    await suite.engine(
      queues,
      async (message: WorkerMessage) => {
        seen.push({
          body: message.rawBody,
          attempt: message.attempt,
          proto: Object.hasOwn(message.attributes, '__proto__') ? message.attributes['__proto__'] : undefined,
          tenant: message.attributes.tenant,
        });
        if (message.rawBody === 'flaky' && message.attempt === 1) throw new RetryableError('timed out', { errorType: 'TEMPORARY' });
        if (message.rawBody === 'broken') throw new NonRetryableError('refused');
      },
      { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } },
    );
    await publishWithProto(queues, 'flaky');
    await publishWithProto(queues, 'broken');

    await eventually(() => (seen.filter((s) => s.body === 'flaky').length === 2 ? true : undefined), 20_000, 'the retry of the flaky message');
    // The retry copy carried it: the second attempt saw it as the first did.
    expect(seen.filter((s) => s.body === 'flaky')).toEqual([
      { body: 'flaky', attempt: 1, proto: 'kept', tenant: 'acme' },
      { body: 'flaky', attempt: 2, proto: 'kept', tenant: 'acme' },
    ]);
    const dead = await eventually(
      async () => {
        const raw = await sqsCall('ReceiveMessage', { QueueUrl: queues.dlqUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 });
        return raw.includes('"Body":"broken"') ? raw : undefined;
      },
      20_000,
      'the dead letter',
    );
    expect(dead).toContain(PROTO);
    expect(dead).toContain('"tenant":{"DataType":"String","StringValue":"acme"}');
  });
});
