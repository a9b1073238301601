import { createRetryPolicy } from '@requeue/retry';
import { SqsWorker } from '@requeue/sqs';
import { describe, expect, it, vi } from 'vitest';
import { MemorySqs, type SqsCommandName } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';

/** Calls of these kinds wait until the test lets them through, so the moment between "handler done" and "delete landed" can be observed. */
class HeldCalls {
  private readonly held = new Map<SqsCommandName, Array<() => void>>();

  constructor(private readonly kinds: readonly SqsCommandName[]) {}

  readonly beforeAnswer = (command: SqsCommandName): Promise<void> | undefined =>
    this.kinds.includes(command) ? new Promise<void>((release) => this.held.set(command, [...(this.held.get(command) ?? []), release])) : undefined;

  waiting(command: SqsCommandName): number {
    return this.held.get(command)?.length ?? 0;
  }

  release(command: SqsCommandName): void {
    for (const release of this.held.get(command)?.splice(0) ?? []) release();
  }
}

/** The fake with `count` messages m1…m`count`, their calls of `held` kinds held. */
function heldSqs(count: number, held: readonly SqsCommandName[]) {
  const calls = new HeldCalls(held);
  const sqs = new MemorySqs({ queueUrl: QUEUE_URL, beforeAnswer: calls.beforeAnswer });
  for (let i = 1; i <= count; i++) sqs.add('{}', { id: `m${i}` });
  return { sqs, calls };
}

function startWorker(sqs: MemorySqs, handled: string[], outcome: () => void = () => undefined): SqsWorker {
  return new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    retryPolicy: createRetryPolicy(),
    handler: async (message) => {
      handled.push(message.messageId);
      outcome();
    },
    maxInFlight: 1,
    // These tests count running and settling slots; prefetch has its own (prefetch.test.ts).
    prefetch: 0,
    batchWaitMs: 0,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    backpressure: false,
  });
}

describe('SqsWorker slots (SQS fake with held deletes)', () => {
  it('starts the next message while the previous one’s delete is still under way', async () => {
    const { sqs, calls } = heldSqs(2, ['DeleteMessageBatch']);
    const handled: string[] = [];
    const worker = startWorker(sqs, handled);
    await worker.start();
    await vi.waitFor(() => expect(handled).toEqual(['m1', 'm2']));
    expect(sqs.deleted).toEqual([]);
    expect(sqs.deleting).toContain('m1');
    calls.release('DeleteMessageBatch');
    await vi.waitFor(() => expect(sqs.deleted).toEqual(['m1', 'm2']));
    calls.release('DeleteMessageBatch');
    sqs.close();
    await worker.stop();
  });

  it('holds at most maxInFlight messages settling: beyond that a message keeps its slot until its delete lands', async () => {
    const { sqs, calls } = heldSqs(3, ['DeleteMessageBatch']);
    const handled: string[] = [];
    const worker = startWorker(sqs, handled);
    await worker.start();
    // m1 settles without its slot; m2 then has to keep its own, so m3 is not received.
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['m1', 'm2']));
    expect(sqs.received).toEqual(['m1', 'm2']);
    expect(worker.health().inFlight).toBe(2);
    calls.release('DeleteMessageBatch');
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['m3']));
    expect(handled).toEqual(['m1', 'm2', 'm3']);
    calls.release('DeleteMessageBatch');
    sqs.close();
    await worker.stop();
    expect(sqs.deleted).toEqual(['m1', 'm2', 'm3']);
  });

  it('does not finish stopping until a retried message’s copy is sent and its original deleted', async () => {
    const { sqs, calls } = heldSqs(1, ['DeleteMessageBatch', 'SendMessageBatch']);
    const worker = startWorker(sqs, [], () => {
      throw new Error('downstream timed out');
    });
    await worker.start();
    await vi.waitFor(() => expect(calls.waiting('SendMessageBatch')).toBe(1));
    sqs.close();
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await vi.waitFor(() => expect(worker.health().ready).toBe(false));
    calls.release('SendMessageBatch');
    // The delete comes only once the copy is safe; stopping waits for it too.
    await vi.waitFor(() => expect(sqs.deleting).toEqual(['m1']));
    expect(stopped).toBe(false);
    calls.release('DeleteMessageBatch');
    await stopping;
    expect(sqs.sent.map((m) => m.body)).toEqual(['{}']);
    expect(sqs.deleted).toEqual(['m1']);
  });
});
