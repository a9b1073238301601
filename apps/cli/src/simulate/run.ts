import { SendMessageBatchCommand, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import type { MemorySqs } from '@requeue/local-aws/memory-sqs';
import type { RetryPolicy } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { SqsWorker, type WorkerMessage } from '@requeue/sqs';
import { VirtualTime } from '@requeue/sqs/time';
import { answerError, SimulatedDependency } from './dependency.js';
import type { TrafficProfile } from './profile.js';
import { Timeline, type TimelinePoint } from './timeline.js';
import { startTraffic, type SimulatedBody } from './traffic.js';

/** The in-memory SQS class, loaded from the optional peer `@requeue/local-aws`. */
export type MemorySqsClass = typeof MemorySqs;

/** Everything one run counted, before it is summarised. */
export interface SimulationRun {
  published: number;
  succeeded: number;
  deadLettered: Record<string, number>;
  /** Moved to the DLQ by SQS's redrive, with no reason. */
  redriven: number;
  /** Still on the queue when the run gave up (12 hours after the traffic ended). */
  unfinished: number;
  /** Milliseconds from publish to success, one per success. */
  timeToSuccessMs: number[];
  /** Per tenant, the same. */
  timeToSuccessByTenant: Record<string, number[]>;
  /** Handler runs per ended message. */
  attempts: number[];
  downstreamCalls: number;
  peakCallsPerSecond: number;
  sqsCalls: Record<string, number>;
  virtualSeconds: number;
  series: TimelinePoint[];
  intervalSeconds: number;
}

const QUEUE_URL = 'http://127.0.0.1:4566/000000000000/simulated';
const DLQ_URL = `${QUEUE_URL}-dlq`;
const START = Date.UTC(2026, 0, 1);
const HORIZON_MS = 12 * 3_600_000;

/**
 * A count per message number. A typed array that doubles as the numbers grow: a plain
 * array written at scattered indexes (messages end out of order) turns into a slow
 * dictionary over an hour's 720,000 messages.
 */
class PerMessage {
  private counts = new Uint32Array(1024);

  get(n: number): number {
    return n < this.counts.length ? this.counts[n]! : 0;
  }

  add(n: number): void {
    if (n >= this.counts.length) {
      const grown = new Uint32Array(Math.max(n + 1, this.counts.length * 2));
      grown.set(this.counts);
      this.counts = grown;
    }
    this.counts[n]!++;
  }
}

interface Tally {
  /** By message number: 1 once it ended (succeeded or dead-lettered). */
  ended: PerMessage;
  /** By message number: its handler runs. */
  runs: PerMessage;
  run: SimulationRun;
  timeline: Timeline;
}

function newTally(profile: TrafficProfile): Tally {
  return {
    ended: new PerMessage(),
    runs: new PerMessage(),
    timeline: new Timeline(START, profile.durationSeconds * 1000 * 1.2),
    run: {
      published: 0,
      succeeded: 0,
      deadLettered: {},
      redriven: 0,
      unfinished: 0,
      timeToSuccessMs: [],
      timeToSuccessByTenant: {},
      attempts: [],
      downstreamCalls: 0,
      peakCallsPerSecond: 0,
      sqsCalls: {},
      virtualSeconds: 0,
      series: [],
      intervalSeconds: 0,
    },
  };
}

/** Marks a message ended once: its attempts count from then on. */
function end(tally: Tally, n: number): boolean {
  if (tally.ended.get(n) > 0) return false;
  tally.ended.add(n);
  tally.run.attempts.push(tally.runs.get(n));
  return true;
}

function handlerFor(profile: TrafficProfile, time: VirtualTime, dependency: SimulatedDependency, tally: Tally) {
  return async (message: WorkerMessage<SimulatedBody>): Promise<void> => {
    const body = message.body;
    tally.runs.add(body.n);
    tally.run.downstreamCalls++;
    tally.timeline.count('calls', time.now());
    const answer = dependency.answer(time.now(), body.permanent === true);
    if (answer === 'rate-limited') tally.timeline.count('rateLimited', time.now());
    if (answer === 'never') {
      // No answer: the worker's handler timeout aborts the call.
      await new Promise((_, reject) => message.signal.addEventListener('abort', () => reject(message.signal.reason as Error), { once: true }));
      return;
    }
    await new Promise<void>((resolve) => time.after(profile.handlerMs, resolve));
    if (answer !== 'ok') throw answerError(answer, profile.dependency.retryAfterSeconds);
    if (!end(tally, body.n)) return;
    const waited = time.now() - body.t;
    tally.run.succeeded++;
    tally.run.timeToSuccessMs.push(waited);
    if (body.tenant !== undefined) (tally.run.timeToSuccessByTenant[body.tenant] ??= []).push(waited);
    tally.timeline.count('succeeded', time.now());
  };
}

/** The DLQ's sends, read on their way to the queue: which message, and the reason the worker gave. */
function countingDeadLetters(client: SQSClient, time: VirtualTime, tally: Tally): SQSClient {
  const send = (command: unknown) => {
    if (command instanceof SendMessageBatchCommand && command.input.QueueUrl === DLQ_URL) {
      for (const entry of command.input.Entries ?? []) {
        const record = JSON.parse(entry.MessageAttributes?.['x-dead-letter']?.StringValue ?? '{}') as { reason?: string };
        if (!end(tally, (JSON.parse(entry.MessageBody ?? '{}') as SimulatedBody).n)) continue;
        const reason = record.reason ?? 'unknown';
        tally.run.deadLettered[reason] = (tally.run.deadLettered[reason] ?? 0) + 1;
        tally.timeline.count('deadLettered', time.now());
      }
    }
    return client.send(command as SendMessageBatchCommand);
  };
  return { send } as unknown as SQSClient;
}

/** SQS's redrive moves a message out with no reason: found by its body, counted once. */
function countRedriven(queue: MemorySqs, tally: Tally, seen: { count: number }): void {
  const bodies = queue.redrivenBodies;
  for (; seen.count < bodies.length; seen.count++) {
    if (end(tally, (JSON.parse(bodies[seen.count]!) as SimulatedBody).n)) tally.run.redriven++;
  }
}

/**
 * Runs the real `SqsWorker` (as many as `worker.workers`) on an in-memory SQS in virtual
 * time: the profile's traffic for its duration, then until every message has ended or 12
 * virtual hours more have passed.
 */
export async function runSimulation(profile: TrafficProfile, retryPolicy: RetryPolicy, Sqs: MemorySqsClass): Promise<SimulationRun> {
  const time = new VirtualTime(START);
  const tally = newTally(profile);
  const queue = new Sqs({ queueUrl: QUEUE_URL, now: time.now, timers: time, history: false, ...profile.queue });
  const dependency = new SimulatedDependency(profile, START, seededRandom(profile.seed * 7 + 1));
  const client = countingDeadLetters(queue.client, time, tally);
  const workers = Array.from({ length: profile.worker.workers }, (_, i) => {
    const { workers: _count, tenants, ...settings } = profile.worker;
    return new SqsWorker<SimulatedBody>({
      sqs: client,
      queueUrl: QUEUE_URL,
      deadLetterQueueUrl: DLQ_URL,
      handler: handlerFor(profile, time, dependency, tally),
      retryPolicy,
      ...settings,
      ...(tenants ? { tenants: { key: 'attribute.tenant' } } : {}),
      tracing: false,
      now: time.now,
      timers: time,
      random: seededRandom(profile.seed * 7 + 2 + i),
    });
  });
  const traffic = startTraffic(profile, time, seededRandom(profile.seed * 7), (body) => {
    const attributes: Record<string, MessageAttributeValue> = body.tenant === undefined ? {} : { tenant: { DataType: 'String', StringValue: body.tenant } };
    queue.add(JSON.stringify(body), { attributes });
    tally.timeline.count('published', time.now());
  });
  await Promise.all(workers.map((worker) => worker.start()));
  const redriven = { count: 0 };
  const settled = () => {
    countRedriven(queue, tally, redriven);
    tally.timeline.backlog(time.now(), queue.remaining);
    return traffic.finished() && queue.remaining === 0 && tally.run.attempts.length >= traffic.published();
  };
  await time.runUntil(settled, START + profile.durationSeconds * 1000 + HORIZON_MS);
  const run = tally.run;
  run.virtualSeconds = (time.now() - START) / 1000;
  let stopped = 0;
  const stopping = Promise.all(workers.map((worker) => worker.stop().then(() => stopped++)));
  await time.runUntil(() => stopped === workers.length, time.now() + 3_600_000);
  await stopping;
  queue.close();
  run.published = traffic.published();
  run.unfinished = run.published - run.attempts.length;
  run.peakCallsPerSecond = dependency.peakPerSecond;
  run.sqsCalls = { ...queue.calls };
  run.series = tally.timeline.series();
  run.intervalSeconds = tally.timeline.intervalMs / 1000;
  return run;
}
