import { createRetryPolicy } from '@requeue/retry';
import { SqsWorker } from '@requeue/sqs';
import { describe, expect, it, vi } from 'vitest';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';

/**
 * The in-memory SQS with messages m1…m`count` and a redrive at 5 receives; with
 * `roundTripMs`, a receive that has messages answers that much later, as a region's round
 * trip would.
 */
function backlog(count: number, roundTripMs = 0): MemorySqs {
  const sqs = new MemorySqs({
    queueUrl: QUEUE_URL,
    maxReceiveCount: 5,
    beforeAnswer: (command) => (command === 'ReceiveMessage' && roundTripMs > 0 ? new Promise((resolve) => setTimeout(resolve, roundTripMs)) : undefined),
  });
  for (let i = 1; i <= count; i++) sqs.add('{}', { id: `m${i}` });
  return sqs;
}

function worker(
  sqs: MemorySqs,
  handler: (message: { messageId: string; attempt: number }) => Promise<void>,
  extra: { maxInFlight?: number; prefetch?: number; pollers?: number; now?: () => number } = {},
) {
  return new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: `${QUEUE_URL}-dlq`,
    retryPolicy: createRetryPolicy(),
    handler,
    batchWaitMs: 0,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    backpressure: false,
    ...extra,
  });
}

/** A handler that runs until the test lets it finish. */
function heldHandler() {
  const running: Array<() => void> = [];
  return { running, handler: () => new Promise<void>((finish) => running.push(finish)) };
}

/**
 * A worker (maxInFlight 10, prefetch 10, 2 ms handlers) started on `sqs`, whose handlers
 * all hang once its lookahead has grown past the bound: what is on its way then lands on a
 * full prefetch, and no handler starts again until `stop` lets them finish.
 */
async function stalledOnceAhead(sqs: MemorySqs, seen: (message: { messageId: string; attempt: number }) => void = () => undefined) {
  let stalled = false;
  const stall = heldHandler();
  const engine = worker(
    sqs,
    async (message) => {
      seen(message);
      if (stalled) return stall.handler();
      await new Promise((resolve) => setTimeout(resolve, 2));
    },
    { maxInFlight: 10, prefetch: 10, pollers: 10, now: () => performance.now() },
  );
  await engine.start();
  await vi.waitFor(() => expect(sqs.askedUnderWay).toBeGreaterThan(20), { timeout: 10_000 });
  stalled = true;
  return {
    async stop(): Promise<void> {
      for (const finish of stall.running.splice(0)) finish();
      stalled = false;
      sqs.close();
      await engine.stop({ drainTimeoutMs: 1000 });
    },
  };
}

describe('prefetch: receiving runs ahead of the handlers, within a bound', () => {
  it('holds at most maxInFlight running and prefetch more received, and starts a prefetched one the moment a handler finishes', async () => {
    const sqs = backlog(20);
    const { running, handler } = heldHandler();
    const engine = worker(sqs, handler, { maxInFlight: 3, prefetch: 2 });
    await engine.start();
    await vi.waitFor(() => expect(sqs.received).toHaveLength(5));
    expect(running).toHaveLength(3);
    expect(engine.health().inFlight).toBe(5);
    running.shift()!();
    // The fourth starts from the prefetch with no receive in between; then one more is fetched.
    await vi.waitFor(() => expect(running).toHaveLength(3));
    await vi.waitFor(() => expect(sqs.received).toHaveLength(6));
    for (const finish of running.splice(0)) finish();
    sqs.close();
    await engine.stop({ drainTimeoutMs: 1000 });
  });

  it('gives prefetched messages back at once on stop, while the running ones finish', async () => {
    const sqs = backlog(10);
    const { running, handler } = heldHandler();
    const engine = worker(sqs, handler, { maxInFlight: 2, prefetch: 3 });
    await engine.start();
    await vi.waitFor(() => expect(sqs.received).toHaveLength(5));
    sqs.close();
    const stopping = engine.stop({ drainTimeoutMs: 10_000 });
    // Visible again before any running handler is done: not held until the drain ends.
    await vi.waitFor(() => expect(sqs.madeVisible.sort()).toEqual(['m3', 'm4', 'm5']));
    expect(sqs.deleted).toEqual([]);
    for (const finish of running.splice(0)) finish();
    await stopping;
    expect(sqs.deleted.sort()).toEqual(['m1', 'm2']);
    expect(sqs.madeVisible).toHaveLength(3);
  });

  it('at a round trip, receives under way bring what the handlers will have started, yet never more than prefetch wait unstarted', async () => {
    const sqs = backlog(400, 20);
    const started = new Set<string>();
    const samples: Array<{ unstarted: string[]; elsewhere: number }> = [];
    let running = 0;
    const engine = worker(
      sqs,
      async (message) => {
        started.add(message.messageId);
        running++;
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
      },
      { maxInFlight: 10, prefetch: 10, pollers: 10, now: () => performance.now() },
    );
    const sample = setInterval(() => samples.push({ unstarted: sqs.received.filter((id) => !started.has(id)), elsewhere: sqs.askedUnderWay + running }), 1);
    await engine.start();
    await vi.waitFor(() => expect(sqs.deleted.length + sqs.madeVisible.length).toBeGreaterThanOrEqual(400), { timeout: 10_000 });
    clearInterval(sample);
    // Given back on landing, so never waiting; a sample can fall between that decision and its batched visibility call.
    const givenBack = new Set(sqs.madeVisible);
    // A message given back to the redrive's count waits its turn over the limit instead (its next receive would be the redrive).
    const receives = new Map<string, number>();
    for (const id of sqs.received) receives.set(id, (receives.get(id) ?? 0) + 1);
    const atLimit = (id: string) => (receives.get(id) ?? 0) >= 5;
    const waiting = samples.map(({ unstarted, elsewhere }) => ({ unstarted: unstarted.filter((id) => !givenBack.has(id) && !atLimit(id)).length, elsewhere }));
    const mostUnstarted = Math.max(...waiting.map((w) => w.unstarted));
    const mostInPipeline = Math.max(...waiting.map((w) => w.unstarted + w.elsewhere));
    sqs.close();
    await engine.stop({ drainTimeoutMs: 1000 });
    // Beyond maxInFlight + prefetch (20): the round trip is hidden by receives sized to the start rate.
    expect(mostInPipeline).toBeGreaterThan(20);
    expect(mostUnstarted).toBeLessThanOrEqual(10);
    expect(sqs.redriven).toBe(0);
  });

  it('gives back at once, without using an attempt, a message that lands with the prefetch full', async () => {
    const sqs = backlog(2000, 20);
    const attempts = new Map<string, number[]>();
    const stalled = await stalledOnceAhead(sqs, (message) => attempts.set(message.messageId, [...(attempts.get(message.messageId) ?? []), message.attempt]));
    await vi.waitFor(() => expect(sqs.madeVisible.length).toBeGreaterThan(0), { timeout: 10_000 });
    // Given back, never started: each given-back message either ran later (as attempt 1) or not at all.
    const givenBack = sqs.madeVisible;
    for (const id of givenBack) expect(attempts.get(id) ?? [1]).toEqual([1]);
    await stalled.stop();
  });

  it('stops receiving soon after the handlers stall, rather than giving the same messages back until the redrive takes them', async () => {
    const sqs = backlog(5000, 20);
    // No handler starts again, so no start-rate window closes.
    const stalled = await stalledOnceAhead(sqs);
    // What was on its way lands on a full prefetch and is given back; then receiving stops.
    await vi.waitFor(() => expect(performance.now() - sqs.lastReceiveSentAt).toBeGreaterThan(300), { timeout: 3000 });
    // A message given back five times would be redriven by a maxReceiveCount of 5 without ever running.
    expect(sqs.mostReceivesOfOne).toBeLessThanOrEqual(3);
    await stalled.stop();
  });

  it('keeps one long poll when idle, however many receive loops it may run', async () => {
    const sqs = backlog(0);
    const engine = worker(sqs, async () => undefined, { maxInFlight: 50, pollers: 10 });
    await engine.start();
    await vi.waitFor(() => expect(sqs.receivesUnderWay).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sqs.mostReceivesUnderWay).toBe(1);
    sqs.close();
    await engine.stop({ drainTimeoutMs: 0 });
  });

  it('refuses prefetch on a FIFO queue, and defaults to none there', () => {
    const fifo = new MemorySqs({ queueUrl: `${QUEUE_URL}.fifo` });
    const make = (prefetch?: number) =>
      new SqsWorker({
        sqs: fifo.client,
        queueUrl: `${QUEUE_URL}.fifo`,
        deadLetterQueueUrl: `${QUEUE_URL}-dlq.fifo`,
        handler: async () => undefined,
        ...(prefetch === undefined ? {} : { prefetch }),
      });
    expect(() => make(5)).toThrow(/^prefetch: must be 0 on a FIFO queue/);
    expect(() => make()).not.toThrow();
  });
});
