import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { createRetryPolicy } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import { SqsWorker } from './worker.js';

const QUEUE_URL = 'http://sqs.local/000000000000/jobs';

/**
 * An SQS stand-in with a backlog: it records receives, deletes and visibility changes, and
 * counts receives under way. With `redeliver`, a message given back (visibility 0) goes back
 * to the head of the backlog, as SQS makes it visible again at once.
 */
class BacklogSqs {
  readonly received: string[] = [];
  lastReceiveSentAt = 0;
  readonly deleted: string[] = [];
  readonly madeVisible: string[] = [];
  receivesUnderWay = 0;
  mostReceivesUnderWay = 0;
  /** Messages asked for by the receives under way. */
  askedUnderWay = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly backlog: Message[],
    /** How long a receive takes to answer when messages are there: a region's round trip. */
    private readonly roundTripMs = 0,
    private readonly redeliver = false,
  ) {}

  get client(): SQSClient {
    return { send: (command: unknown) => this.send(command) } as unknown as SQSClient;
  }

  close(): void {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
  }

  private async send(command: unknown): Promise<unknown> {
    if (command instanceof ReceiveMessageCommand) {
      const asked = command.input.MaxNumberOfMessages ?? 1;
      this.lastReceiveSentAt = performance.now();
      this.receivesUnderWay++;
      this.askedUnderWay += asked;
      this.mostReceivesUnderWay = Math.max(this.mostReceivesUnderWay, this.receivesUnderWay);
      try {
        if (this.backlog.length === 0 && !this.closed) await new Promise<void>((wake) => this.waiting.push(wake));
        const messages = this.backlog.splice(0, asked);
        if (this.roundTripMs > 0 && messages.length > 0) await new Promise((resolve) => setTimeout(resolve, this.roundTripMs));
        this.received.push(...messages.map((m) => m.MessageId!));
        return { Messages: messages };
      } finally {
        this.receivesUnderWay--;
        this.askedUnderWay -= asked;
      }
    }
    const entries = (command as { input: { Entries?: Array<{ Id: string; ReceiptHandle: string; VisibilityTimeout?: number }> } }).input.Entries ?? [];
    if (command instanceof DeleteMessageBatchCommand) this.deleted.push(...entries.map((e) => e.ReceiptHandle));
    else if (command instanceof ChangeMessageVisibilityBatchCommand) this.madeVisibleAgain(entries.filter((e) => e.VisibilityTimeout === 0).map((e) => e.ReceiptHandle));
    else throw new Error(`unexpected command ${(command as object).constructor.name}`);
    return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
  }

  private madeVisibleAgain(receipts: string[]): void {
    this.madeVisible.push(...receipts);
    if (this.redeliver) this.backlog.unshift(...messages(receipts.map((receipt) => Number(receipt.slice(1)))));
  }

  /** The most receives any one message took. */
  get mostReceivesOfOne(): number {
    const counts = new Map<string, number>();
    for (const id of this.received) counts.set(id, (counts.get(id) ?? 0) + 1);
    return Math.max(0, ...counts.values());
  }
}

/** Messages m1…m`count`, or the messages of these numbers. */
const messages = (countOrNumbers: number | number[]): Message[] =>
  (typeof countOrNumbers === 'number' ? Array.from({ length: countOrNumbers }, (_, i) => i + 1) : countOrNumbers).map((n) => ({
    MessageId: `m${n}`,
    ReceiptHandle: `r${n}`,
    Body: '{}',
    Attributes: { ApproximateReceiveCount: '1' },
  }));

function worker(sqs: BacklogSqs, handler: (message: { messageId: string; attempt: number }) => Promise<void>, extra: { maxInFlight?: number; prefetch?: number; pollers?: number; now?: () => number } = {}) {
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
async function stalledOnceAhead(sqs: BacklogSqs, seen: (message: { messageId: string; attempt: number }) => void = () => undefined) {
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
    const sqs = new BacklogSqs(messages(20));
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
    const sqs = new BacklogSqs(messages(10));
    const { running, handler } = heldHandler();
    const engine = worker(sqs, handler, { maxInFlight: 2, prefetch: 3 });
    await engine.start();
    await vi.waitFor(() => expect(sqs.received).toHaveLength(5));
    sqs.close();
    const stopping = engine.stop({ drainTimeoutMs: 10_000 });
    // Visible again before any running handler is done: not held until the drain ends.
    await vi.waitFor(() => expect(sqs.madeVisible.sort()).toEqual(['r3', 'r4', 'r5']));
    expect(sqs.deleted).toEqual([]);
    for (const finish of running.splice(0)) finish();
    await stopping;
    expect(sqs.deleted.sort()).toEqual(['r1', 'r2']);
    expect(sqs.madeVisible).toHaveLength(3);
  });

  it('at a round trip, receives under way bring what the handlers will have started, yet never more than prefetch wait unstarted', async () => {
    const sqs = new BacklogSqs(messages(400), 20);
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
    const givenBack = new Set(sqs.madeVisible.map((receipt) => receipt.replace(/^r/, 'm')));
    const waiting = samples.map(({ unstarted, elsewhere }) => ({ unstarted: unstarted.filter((id) => !givenBack.has(id)).length, elsewhere }));
    const mostUnstarted = Math.max(...waiting.map((w) => w.unstarted));
    const mostInPipeline = Math.max(...waiting.map((w) => w.unstarted + w.elsewhere));
    sqs.close();
    await engine.stop({ drainTimeoutMs: 1000 });
    // Beyond maxInFlight + prefetch (20): the round trip is hidden by receives sized to the start rate.
    expect(mostInPipeline).toBeGreaterThan(20);
    expect(mostUnstarted).toBeLessThanOrEqual(10);
  });

  it('gives back at once, without using an attempt, a message that lands with the prefetch full', async () => {
    const sqs = new BacklogSqs(messages(2000), 20);
    const attempts = new Map<string, number[]>();
    const stalled = await stalledOnceAhead(sqs, (message) => attempts.set(message.messageId, [...(attempts.get(message.messageId) ?? []), message.attempt]));
    await vi.waitFor(() => expect(sqs.madeVisible.length).toBeGreaterThan(0), { timeout: 10_000 });
    // Given back, never started: each given-back message either ran later (as attempt 1) or not at all.
    const givenBack = sqs.madeVisible.map((handle) => `m${handle.slice(1)}`);
    for (const id of givenBack) expect(attempts.get(id) ?? [1]).toEqual([1]);
    await stalled.stop();
  });

  it('stops receiving soon after the handlers stall, rather than giving the same messages back until the redrive takes them', async () => {
    const sqs = new BacklogSqs(messages(5000), 20, true);
    // No handler starts again, so no start-rate window closes.
    const stalled = await stalledOnceAhead(sqs);
    // What was on its way lands on a full prefetch and is given back; then receiving stops.
    await vi.waitFor(() => expect(performance.now() - sqs.lastReceiveSentAt).toBeGreaterThan(300), { timeout: 3000 });
    // A message given back five times would be redriven by a maxReceiveCount of 5 without ever running.
    expect(sqs.mostReceivesOfOne).toBeLessThanOrEqual(3);
    await stalled.stop();
  });

  it('keeps one long poll when idle, however many receive loops it may run', async () => {
    const sqs = new BacklogSqs([]);
    const engine = worker(sqs, async () => undefined, { maxInFlight: 50, pollers: 10 });
    await engine.start();
    await vi.waitFor(() => expect(sqs.receivesUnderWay).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sqs.mostReceivesUnderWay).toBe(1);
    sqs.close();
    await engine.stop({ drainTimeoutMs: 0 });
  });

  it('refuses prefetch on a FIFO queue, and defaults to none there', () => {
    const fifo = new BacklogSqs([]);
    const make = (prefetch?: number) =>
      new SqsWorker({ sqs: fifo.client, queueUrl: `${QUEUE_URL}.fifo`, deadLetterQueueUrl: `${QUEUE_URL}-dlq.fifo`, handler: async () => undefined, ...(prefetch === undefined ? {} : { prefetch }) });
    expect(() => make(5)).toThrow(/^prefetch: must be 0 on a FIFO queue/);
    expect(() => make()).not.toThrow();
  });
});
