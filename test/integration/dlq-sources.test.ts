import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { replayDeadLetters } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import { answerDeadLetterSourceQueues, deadLetterFrom } from '../support/dead-letter-sources.js';
import { TEST_REGION } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

const deadLetter = deadLetterFrom;

describe('replay follows x-dead-letter only to the DLQ’s own source queues (ListDeadLetterSourceQueues, answered as SQS does)', () => {
  it('a forged source queue in the same account is skipped and receives nothing; the genuine one is replayed', async () => {
    const jobs = await suite.emulator.createQueues();
    const unrelated = await suite.emulator.createQueues();
    for (const [body, source] of [
      ['forged', unrelated.queueUrl],
      ['genuine', jobs.queueUrl],
    ] as const) {
      await suite.emulator.sqs.send(
        new SendMessageCommand({ QueueUrl: jobs.dlqUrl, MessageBody: body, MessageAttributes: { 'x-dead-letter': deadLetter(source, body) } }),
      );
    }
    const sqs = answerDeadLetterSourceQueues(
      new SQSClient({ endpoint: suite.emulator.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
      suite.emulator.sqs,
    );
    try {
      const result = await replayDeadLetters({ sqs, dlqUrl: jobs.dlqUrl }, {}, { resetAttempts: false, dryRun: false });
      expect(result.replayed.map((r) => r.to)).toEqual([jobs.queueUrl]);
      expect(result.skipped).toEqual([{ messageId: expect.any(String), why: expect.stringMatching(/is not a source queue of this DLQ .*: pass --to/) }]);
    } finally {
      sqs.destroy();
    }
    expect((await suite.emulator.drain(unrelated.queueUrl)).map((m) => m.Body)).toEqual([]);
    expect((await suite.emulator.drain(jobs.queueUrl)).map((m) => m.Body)).toEqual(['genuine']);
    expect((await suite.emulator.drain(jobs.dlqUrl)).map((m) => m.Body)).toEqual(['forged']);
  });
});
