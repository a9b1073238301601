import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InFlightLimit } from '../../libs/sqs/src/receive/in-flight-limit.js';
import { silentLogger } from '../../libs/sqs/src/events/logger.js';
import { Poller } from '../../libs/sqs/src/receive/poller.js';
import { realTimers } from '../../libs/sqs/src/time/timers.js';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';

/** A queue with a backlog that answers every receive, after a 15 ms round trip, with as many messages as it asks for. */
function backlogSqs() {
  const sqs = new MemorySqs({
    queueUrl: QUEUE_URL,
    beforeAnswer: (command) => (command === 'ReceiveMessage' ? new Promise((resolve) => setTimeout(resolve, 15)) : undefined),
  });
  for (let i = 0; i < 5000; i++) sqs.add('{}');
  return sqs;
}

function poller(sqs: SQSClient, limit: InFlightLimit, concurrency: number, gatherMs: number) {
  return new Poller({
    sqs,
    queueUrl: QUEUE_URL,
    limit,
    withheld: () => 0,
    waitTimeSeconds: 20,
    receiveBatchSize: 10,
    concurrency,
    gatherMs,
    backoff: { initialMs: 100, maxMs: 1000 },
    logger: silentLogger,
    now: () => Date.now(),
    timers: realTimers,
    random: Math.random,
    receiveTook: () => undefined,
    // Each message keeps its slot until the test frees it, as a running handler would.
    onMessage: () => undefined,
    onPollError: () => undefined,
    blockedUntil: () => undefined,
  });
}

describe('Poller: receive loops and the slots they reserve', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gathers freed slots into full receives one loop at a time, not into a receive per slot or two', async () => {
    const sqs = backlogSqs();
    const limit = new InFlightLimit(20);
    const receiving = poller(sqs.client, limit, 6, 40);
    receiving.start();
    await vi.advanceTimersByTimeAsync(20);
    expect(sqs.asked).toEqual([10, 10]);

    // Handlers finish one by one, a slot every 5 ms: 8 free up within one 40 ms gathering.
    for (let freed = 0; freed < 40; freed++) {
      limit.release(1);
      await vi.advanceTimersByTimeAsync(5);
    }
    const later = sqs.asked.slice(2);
    expect(later.reduce((sum, asked) => sum + asked, 0)).toBeGreaterThanOrEqual(30);
    // Loops gathering side by side would each end their wait with what had freed since the last one took its batch.
    expect(Math.min(...later)).toBeGreaterThanOrEqual(7);

    limit.release(limit.inUse);
    const stopped = receiving.stop();
    await vi.advanceTimersByTimeAsync(100);
    await stopped;
  });
});
