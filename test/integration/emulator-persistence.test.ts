import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../support/emulator.js';

describe('the emulator the restart suites run on (fauxqs persisted to a data directory)', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ dataDir: mkdtempSync(join(tmpdir(), 'requeue-fauxqs-')) });
  });
  afterAll(() => emulator.stop());

  it('keeps a message made visible again with visibility 0, and its receive count, as SQS does', async () => {
    const { queueUrl } = await emulator.createQueues({ visibilityTimeoutSeconds: 30 });
    await emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'given back' }));
    const receive = () =>
      emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
    const [first] = (await receive()).Messages ?? [];
    await emulator.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: first!.ReceiptHandle!, VisibilityTimeout: 0 }));
    const [again] = (await receive()).Messages ?? [];
    expect(again?.Body).toBe('given back');
    expect(again?.Attributes?.ApproximateReceiveCount).toBe('2');
  });
});
