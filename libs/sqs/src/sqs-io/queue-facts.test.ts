import { describe, expect, it } from 'vitest';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterRoomProblem, readQueueFacts } from './queue-facts.js';

describe('deadLetterRoomProblem', () => {
  it("is silent when the queue's limit leaves 8 KiB under its DLQ's, as RetryingQueue sets them", () => {
    expect(deadLetterRoomProblem({ maximumMessageSize: 1_040_384, deadLetterMaximumMessageSize: 1_048_576 })).toBeUndefined();
  });

  it('says what to set when a message as large as the queue takes would leave its dead letter no room for its reason', () => {
    const problem = deadLetterRoomProblem({ maximumMessageSize: 1_048_576, deadLetterMaximumMessageSize: 1_048_576 });
    expect(problem).toContain("Set the queue's MaximumMessageSize to at most 1040384 (RetryingQueue does)");
    expect(deadLetterRoomProblem({ maximumMessageSize: 262_144, deadLetterMaximumMessageSize: 262_144 })).toContain("or the DLQ's to 270336");
  });
});

describe('readQueueFacts: how long a wait may be spent in the worker', () => {
  const unused = {} as SQSClient;

  it('defers in place for up to 20 s on a standard queue whatever its visibility timeout, so a short timeout does not turn every deferral into a copy', async () => {
    const facts = await readQueueFacts(unused, 'https://sqs.eu-west-1.amazonaws.com/1/jobs', { visibilityTimeoutSeconds: 1, maxReceiveCount: 10 });
    expect(facts.deferInPlaceSeconds).toBe(20);
    expect(facts.retryInPlaceSeconds).toBe(1);
  });

  it('keeps a FIFO head in place no longer than the visibility timeout, and defers no FIFO message in place', async () => {
    const facts = await readQueueFacts(unused, 'https://sqs.eu-west-1.amazonaws.com/1/jobs.fifo', {
      visibilityTimeoutSeconds: 5,
      maxReceiveCount: 10,
      fifoRetryInPlaceSeconds: 30,
    });
    expect(facts.retryInPlaceSeconds).toBe(5);
    expect(facts.deferInPlaceSeconds).toBe(0);
  });
});
