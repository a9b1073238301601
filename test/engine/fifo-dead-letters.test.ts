import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { SqsWorker } from '@requeue/sqs';
import { replayDeadLetters } from '@requeue/sqs/dead-letters';
import { describe, expect, it, vi } from 'vitest';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

// FIFO as SQS behaves: a receive returns several messages of a group, in order, and none of
// a group with a message in flight (fauxqs returns one message per group per receive).
const QUEUE_URL = 'http://sqs.local/000000000000/orders.fifo';
const DLQ_URL = 'http://sqs.local/000000000000/orders-dlq.fifo';
const GROUPS = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];

interface Job {
  id: string;
  group: string;
  fate: 'ok' | 'flaky' | 'permanent';
}

/** 6 groups × 25: 20% failing once, 5% failing for good, seeded. */
function workload(): Job[] {
  const random = seededRandom(63);
  return GROUPS.flatMap((group) =>
    Array.from({ length: 25 }, (_, i): Job => {
      const roll = random();
      return { id: `${group}-${i}`, group, fate: roll < 0.05 ? 'permanent' : roll < 0.25 ? 'flaky' : 'ok' };
    }),
  );
}

const idOf = (body: string) => (JSON.parse(body) as { id: string }).id;

describe('FIFO dead letters keep their group (the SQS-like fake)', () => {
  it('every dead letter is in the FIFO DLQ under its original group, in order, and a replay restores each group in that order', async () => {
    const jobs = workload();
    const permanent = jobs.filter((job) => job.fate === 'permanent');
    expect(permanent.length).toBeGreaterThan(3);
    const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
    for (const job of jobs) sqs.add(JSON.stringify({ id: job.id }), { id: job.id, groupId: job.group });
    const fates = new Map(jobs.map((job) => [job.id, job.fate]));
    const worker = new SqsWorker({
      sqs: sqs.client,
      queueUrl: QUEUE_URL,
      deadLetterQueueUrl: DLQ_URL,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 10,
      batchWaitMs: 0,
      waitTimeSeconds: 0,
      retryPolicy: createRetryPolicy({ jitter: 'none', types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
      handler: async (message) => {
        const fate = fates.get((message.body as { id: string }).id);
        if (fate === 'permanent') throw new NonRetryableError('rejected for good');
        if (fate === 'flaky' && message.attempt === 1) throw new RetryableError('timed out');
      },
    });
    await worker.start();
    await vi.waitFor(() => expect(sqs.remaining).toBe(0), { timeout: 20_000 });
    await worker.stop();

    const letters = sqs.sent.filter((sent) => sent.queueUrl === DLQ_URL);
    expect(letters.map((letter) => idOf(letter.body)).sort()).toEqual(permanent.map((job) => job.id).sort());
    for (const group of GROUPS) {
      const inGroup = letters.filter((letter) => letter.groupId === group).map((letter) => idOf(letter.body));
      expect(inGroup).toEqual(permanent.filter((job) => job.group === group).map((job) => job.id));
    }

    // The DLQ as SQS keeps it; a replay reads what SQS shows, round by round, and sends each group back in order.
    const dlq = new MemorySqs({ queueUrl: DLQ_URL });
    for (const letter of letters) dlq.add(letter.body, { groupId: letter.groupId, attributes: letter.attributes });
    const result = await replayDeadLetters({ sqs: dlq.client, dlqUrl: DLQ_URL }, {}, { to: QUEUE_URL, resetAttempts: true, dryRun: false });
    expect(result.replayed).toHaveLength(permanent.length);
    expect(dlq.remaining).toBe(0);
    const replayed = dlq.sent.filter((sent) => sent.queueUrl === QUEUE_URL);
    for (const group of GROUPS) {
      expect(replayed.filter((sent) => sent.groupId === group).map((sent) => idOf(sent.body))).toEqual(
        permanent.filter((job) => job.group === group).map((job) => job.id),
      );
    }
  });

  it('replays a FIFO DLQ larger than one read shows, round by round, each group in order', async () => {
    const dlq = new MemorySqs({ queueUrl: DLQ_URL });
    // More letters in a group than one receive returns (10): SQS shows the rest only once those are gone.
    const ids = GROUPS.slice(0, 3).flatMap((group) => Array.from({ length: 25 }, (_, i) => `${group}-${i}`));
    for (const id of ids) dlq.add(JSON.stringify({ id }), { groupId: id.split('-')[0] });
    const result = await replayDeadLetters({ sqs: dlq.client, dlqUrl: DLQ_URL }, {}, { to: QUEUE_URL, resetAttempts: true, dryRun: false });
    expect(result.replayed).toHaveLength(75);
    const replayed = dlq.sent.filter((sent) => sent.queueUrl === QUEUE_URL);
    for (const group of GROUPS.slice(0, 3))
      expect(replayed.filter((sent) => sent.groupId === group).map((sent) => idOf(sent.body))).toEqual(ids.filter((id) => id.startsWith(group)));
  });
});
