import { createRetryPolicy, RetryableError } from '@requeue/retry';
import { describe, expect, it, vi } from 'vitest';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, type WorkerEvents, type WorkerMessage } from '@requeue/sqs';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { VirtualTime } from '@requeue/sqs/time';

// SQS FIFO as SQS behaves: several messages of a group in one receive, receive counts
// that rise with every receive, and the redrive past maxReceiveCount (fauxqs returns one
// message per group per receive, so this needs the fake).
const QUEUE_URL = 'http://sqs.local/000000000000/orders.fifo';
const DLQ_URL = 'http://sqs.local/000000000000/orders-dlq.fifo';

type Settled = WorkerEvents['settled'];

/** Retries after `seconds` for TEMPORARY, after `longSeconds` for SERVER_ERROR; no jitter. */
function policy(seconds: number, options: { longSeconds?: number; maxAttempts?: number } = {}) {
  const fixed = (s: number) => ({ backoff: { type: 'fixed' as const, delayMs: s * 1000 } });
  return createRetryPolicy({
    jitter: 'none',
    maxDelayMs: 600_000,
    maxAttempts: options.maxAttempts ?? 10,
    types: { TEMPORARY: fixed(seconds), SERVER_ERROR: fixed(options.longSeconds ?? seconds) },
  });
}

interface Scenario {
  maxReceiveCount: number;
  /** How often each message fails before it succeeds (absent: never). */
  failures: ReadonlyMap<string, number>;
  retryPolicy: ReturnType<typeof policy>;
  groups: ReadonlyMap<string, readonly string[]>;
  now?: () => number;
  /** Runs the worker and the queue in virtual time (its `now` wins over `now`). */
  time?: VirtualTime;
  fifoRetryInPlaceSeconds?: number;
  /** The failing attempt's error type. @default TEMPORARY */
  errorTypeOf?: (attempt: number) => string;
}

/** The fake's client until `cut()`; then no call is answered, as for a process that died. */
function cuttableClient(sqs: MemorySqs): { client: SQSClient; cut: () => void } {
  let cut = false;
  const client = { send: (command: unknown) => (cut ? new Promise(() => undefined) : sqs.client.send(command as never)) } as unknown as SQSClient;
  return { client, cut: () => void (cut = true) };
}

function clockOf(scenario: Pick<Scenario, 'now' | 'time'>) {
  if (scenario.time) return { now: scenario.time.now, timers: scenario.time };
  return scenario.now ? { now: scenario.now } : {};
}

/** Starts the worker, runs until the queue is empty, then stops it, all in virtual time. */
async function drainInVirtualTime(run: ReturnType<typeof startScenario>, time: VirtualTime): Promise<void> {
  await run.worker.start();
  const emptied = await time.runUntil(() => run.sqs.remaining === 0, time.now() + 3_600_000);
  expect(emptied).toBe(true);
  let stopped = false;
  const stopping = run.worker.stop().then(() => (stopped = true));
  await time.runUntil(() => stopped, time.now() + 600_000);
  await stopping;
}

/** A FIFO worker on the fake, recording every run and settle. */
function startScenario(scenario: Scenario) {
  const sqs = new MemorySqs({
    queueUrl: QUEUE_URL,
    maxReceiveCount: scenario.maxReceiveCount,
    visibilityTimeoutSeconds: 30,
    ...clockOf(scenario),
  });
  for (const [groupId, ids] of scenario.groups) for (const id of ids) sqs.add(JSON.stringify({ id }), { id, groupId });
  const runs: Array<{ id: string; attempt: number }> = [];
  const succeeded: string[] = [];
  const settled: Array<Settled> = [];
  const { client, cut } = cuttableClient(sqs);
  const worker = new SqsWorker({
    sqs: client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    retryPolicy: scenario.retryPolicy,
    handler: async (message: WorkerMessage) => {
      const { id } = message.body as { id: string };
      runs.push({ id, attempt: message.attempt });
      if (message.attempt <= (scenario.failures.get(id) ?? 0))
        throw new RetryableError('downstream timed out', { errorType: scenario.errorTypeOf?.(message.attempt) ?? 'TEMPORARY' });
      succeeded.push(id);
    },
    // Every group in hand at once, as a worker with room for them would have it.
    maxInFlight: 50,
    batchWaitMs: 0,
    waitTimeSeconds: 0,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: scenario.maxReceiveCount,
    backpressure: false,
    ...(scenario.fifoRetryInPlaceSeconds === undefined ? {} : { fifoRetryInPlaceSeconds: scenario.fifoRetryInPlaceSeconds }),
    ...clockOf(scenario),
  });
  worker.on('settled', (event) => settled.push(event));
  return { sqs, worker, runs, succeeded, settled, cut };
}

/** 6 groups of 25; every fifth message fails once, every fifteenth twice. */
function groupsWithFailures() {
  const groups = new Map<string, string[]>();
  const failures = new Map<string, number>();
  for (let g = 0; g < 6; g++) {
    const ids = Array.from({ length: 25 }, (_, i) => `g${g}-${String(i).padStart(2, '0')}`);
    groups.set(`g${g}`, ids);
    ids.forEach((id, i) => {
      if ((i + g) % 15 === 0) failures.set(id, 2);
      else if ((i + g) % 5 === 0) failures.set(id, 1);
    });
  }
  return { groups, failures };
}

/** Out of order, lost, healthy messages the redrive took, and the most receives of a message that never failed. */
function tally(run: ReturnType<typeof startScenario>, groups: ReadonlyMap<string, readonly string[]>, failures: ReadonlyMap<string, number>) {
  const deadLettered = run.sqs.sent.filter((m) => m.queueUrl === DLQ_URL).map((m) => (JSON.parse(m.body) as { id: string }).id);
  const accounted = new Set([...run.succeeded, ...deadLettered, ...run.sqs.redrivenIds]);
  const all = [...groups.values()].flat();
  let outOfOrder = 0;
  for (const ids of groups.values()) {
    const done = run.succeeded.filter((id) => ids.includes(id));
    done.forEach((id, i) => {
      if (i > 0 && id < done[i - 1]!) outOfOrder++;
    });
  }
  const receives = new Map<string, number>();
  for (const id of run.sqs.received) receives.set(id, (receives.get(id) ?? 0) + 1);
  const healthy = all.filter((id) => !failures.has(id));
  return {
    outOfOrder,
    lost: all.filter((id) => !accounted.has(id)).length,
    healthyRedriven: run.sqs.redrivenIds.filter((id) => !failures.has(id)).length,
    followersMostReceives: Math.max(...healthy.map((id) => receives.get(id) ?? 0)),
    deadLettered: deadLettered.length,
  };
}

describe('FIFO: a failing head waits in place, its group held', () => {
  it('with maxReceiveCount 6 and 3, heads failing once or twice with 1 s backoffs redrive no healthy message and keep every group in order', async () => {
    const { groups, failures } = groupsWithFailures();
    // The two queues side by side: each run waits mostly on its backoffs.
    // In virtual time: the 1 s backoffs take no real time.
    const runs = [];
    for (const maxReceiveCount of [6, 3]) {
      const time = new VirtualTime(Date.UTC(2026, 0, 1));
      const run = startScenario({ maxReceiveCount, failures, groups, retryPolicy: policy(1), time });
      await drainInVirtualTime(run, time);
      runs.push({ maxReceiveCount, run });
    }
    for (const { maxReceiveCount, run } of runs) {
      const figures = tally(run, groups, failures);
      process.stdout.write(`fifo in place, maxReceiveCount ${maxReceiveCount}: ${JSON.stringify(figures)}\n`);
      expect(figures).toEqual({ outOfOrder: 0, lost: 0, healthyRedriven: 0, followersMostReceives: 1, deadLettered: 0 });
      // Each failure waited in the worker: nothing was handed back to SQS.
      expect(run.sqs.madeVisible).toEqual([]);
      const retries = run.settled.filter((s) => s.outcome.kind === 'retry');
      expect(retries.length).toBe([...failures.values()].reduce((sum, n) => sum + n, 0));
      expect(retries.every((s) => s.outcome.kind === 'retry' && s.outcome.transport === 'in-place')).toBe(true);
    }
  });

  it('counts each attempt in place, and a head that keeps failing reaches max-attempts with its reason; the group then runs', async () => {
    const groups = new Map([['a', ['m0', 'm1', 'm2']]]);
    const time = new VirtualTime(Date.UTC(2026, 0, 1));
    const run = startScenario({ maxReceiveCount: 3, failures: new Map([['m0', 99]]), groups, retryPolicy: policy(1, { maxAttempts: 4 }), time });
    await drainInVirtualTime(run, time);
    expect(run.runs).toEqual([...[1, 2, 3, 4].map((attempt) => ({ id: 'm0', attempt })), { id: 'm1', attempt: 1 }, { id: 'm2', attempt: 1 }]);
    const [deadLetter] = run.sqs.sent.filter((m) => m.queueUrl === DLQ_URL);
    expect(JSON.parse(deadLetter!.attributes['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'max-attempts', attempts: 4 });
    // Four attempts on one receive: SQS's redrive (3) never saw them.
    expect(run.sqs.received).toEqual(['m0', 'm1', 'm2']);
  });

  it('hands the group back when a wait is longer than the bound, and its next receive still counts the attempt made in place', async () => {
    let offsetMs = 0;
    const now = () => Date.now() + offsetMs;
    const groups = new Map([['a', ['m0', 'm1', 'm2']]]);
    // The first failure waits 1 s (in place), the second 120 s: past the 30 s bound.
    const run = startScenario({
      maxReceiveCount: 5,
      failures: new Map([['m0', 2]]),
      groups,
      retryPolicy: policy(1, { longSeconds: 120 }),
      errorTypeOf: (attempt) => (attempt === 1 ? 'TEMPORARY' : 'SERVER_ERROR'),
      now,
      fifoRetryInPlaceSeconds: 30,
    });
    await run.worker.start();
    await vi.waitFor(() => expect(run.sqs.madeVisible).toEqual(['m1', 'm2']), { timeout: 5_000 });
    expect(run.settled.slice(0, 2)).toMatchObject([
      { messageId: 'm0', outcome: { kind: 'retry', transport: 'in-place', delaySeconds: 1, nextAttempt: 2 } },
      { messageId: 'm0', outcome: { kind: 'retry', transport: 'visibility', delaySeconds: 120, nextAttempt: 3 } },
    ]);
    // The retry comes due; SQS returns the head before the rest of its group.
    offsetMs += 121_000;
    await run.sqs.whenEmpty();
    await run.worker.stop();
    expect(run.runs).toEqual([
      { id: 'm0', attempt: 1 },
      { id: 'm0', attempt: 2 },
      { id: 'm0', attempt: 3 },
      { id: 'm1', attempt: 1 },
      { id: 'm2', attempt: 1 },
    ]);
    expect(run.succeeded).toEqual(['m0', 'm1', 'm2']);
  }, 15_000);

  it('a crash while a head waits in place loses nothing: its group returns in order once the visibility lapses, attempts counted from the receive count', async () => {
    let offsetMs = 0;
    const now = () => Date.now() + offsetMs;
    const groups = new Map([['a', ['m0', 'm1', 'm2']]]);
    const first = startScenario({ maxReceiveCount: 5, failures: new Map([['m0', 1]]), groups, retryPolicy: policy(5), now });
    await first.worker.start();
    await vi.waitFor(() => expect(first.settled).toMatchObject([{ messageId: 'm0', outcome: { transport: 'in-place' } }]));
    // The process dies: no call of its reaches SQS again, and no heartbeat.
    first.cut();
    offsetMs += 31_000;

    const runs: Array<{ id: string; attempt: number }> = [];
    const second = new SqsWorker({
      sqs: first.sqs.client,
      queueUrl: QUEUE_URL,
      deadLetterQueueUrl: DLQ_URL,
      handler: async (message: WorkerMessage) => void runs.push({ id: (message.body as { id: string }).id, attempt: message.attempt }),
      waitTimeSeconds: 0,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
      now,
    });
    await second.start();
    await first.sqs.whenEmpty();
    await second.stop();
    // All three in order. A crash redelivery counts as an attempt (docs/worker.md, Attempts),
    // for the messages held behind the head too: the new worker has only the receive count.
    expect(runs).toEqual([
      { id: 'm0', attempt: 2 },
      { id: 'm1', attempt: 2 },
      { id: 'm2', attempt: 2 },
    ]);
    expect(first.sqs.deleted).toEqual(['m0', 'm1', 'm2']);
  });

  it('at shutdown, a head waiting in place is hidden for its retry and its group handed back, without waiting out the backoff', async () => {
    const groups = new Map([['a', ['m0', 'm1']]]);
    const run = startScenario({ maxReceiveCount: 5, failures: new Map([['m0', 1]]), groups, retryPolicy: policy(20) });
    await run.worker.start();
    await vi.waitFor(() => expect(run.settled).toMatchObject([{ messageId: 'm0', outcome: { kind: 'retry', transport: 'in-place', delaySeconds: 20 } }]));
    const stopping = performance.now();
    await run.worker.stop();
    expect(performance.now() - stopping).toBeLessThan(5_000);
    expect(run.settled.map((s) => [s.messageId, s.outcome.kind, 'transport' in s.outcome ? s.outcome.transport : undefined])).toEqual([
      ['m0', 'retry', 'in-place'],
      ['m0', 'retry', 'visibility'],
      ['m1', 'released', undefined],
    ]);
    expect(run.runs).toEqual([{ id: 'm0', attempt: 1 }]);
  });
});
