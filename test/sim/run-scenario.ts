import { createRetryPolicy, NonRetryableError } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { SqsWorker, type WorkerLogger, type WorkerMessage } from '@requeue/sqs';
import { VirtualTime } from '@requeue/sqs/time';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { faultySqs, type FaultCounts } from './faulty-sqs.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { Incarnation } from './mortal.js';
import type { AttemptOutcome, Scenario } from './scenario.js';

const QUEUE = 'http://127.0.0.1/000000000000/sim';
const RETRY_STATE_KEY = 'sim-retry-state-key-0123456789abcdef';
/** The queue's redrive: a message received this many times leaves at its next receive. */
export const MAX_RECEIVE_COUNT = 10;
/** How long a run may take in virtual time before what is left counts as stuck. */
const HORIZON_MS = 12 * 3_600_000;
const START = Date.UTC(2026, 0, 1);

/** One run of a handler: which message, which attempt, when, and what it did. */
export interface HandlerRun {
  id: string;
  attempt: number;
  at: number;
  outcome: AttemptOutcome;
}

/** A dead letter the worker sent, by the message's own id, with the reason it gave. */
export interface DeadLetter {
  id: string;
  reason: string | undefined;
  attempts: number | undefined;
  error: string | undefined;
}

/** What a run leaves to judge: every handler run, every dead letter, what SQS moved out, and what never ended. */
export interface RunRecord {
  scenario: Scenario;
  runs: HandlerRun[];
  deadLetters: DeadLetter[];
  redriven: string[];
  settled: boolean;
  virtualMs: number;
  faults: Omit<FaultCounts, 'forked' | 'lostReceives'>;
  /** Messages SQS's own faults made two of (`FaultCounts.forked`), by id. */
  forked: string[];
  /** Receives SQS counted that no handler saw (`FaultCounts.lostReceives`), by id. */
  lostReceives: Record<string, number>;
  /** With idempotency on: the messages whose completion the store did not take, so a duplicate may run again. */
  completionsLost: string[] | undefined;
  sqsCalls: number;
}

const silent: WorkerLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The handler's answer for one attempt, as the scenario scripts it. */
function perform(outcome: AttemptOutcome, signal: AbortSignal): Promise<void> {
  switch (outcome) {
    case 'ok':
      return Promise.resolve();
    case 'retryable':
      return Promise.reject(new Error('dependency answered 503 for this job'));
    case 'down':
      return Promise.reject(Object.assign(new Error('503 Service Unavailable'), { statusCode: 503 }));
    case 'permanent':
      return Promise.reject(new NonRetryableError('the job is malformed'));
    case 'rate-limited':
      return Promise.reject(Object.assign(new Error('429 Too Many Requests'), { statusCode: 429, headers: { 'retry-after': '2' } }));
    case 'hangs':
      // Only the worker's timeout (or shutdown) ends it.
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  }
}

function idOf(body: string): string {
  return (JSON.parse(body) as { id: string }).id;
}

function lostById(byBody: Map<string, number>): Record<string, number> {
  const byId: Record<string, number> = {};
  for (const [body, lost] of byBody) byId[idOf(body)] = (byId[idOf(body)] ?? 0) + lost;
  return byId;
}

/** Runs one scenario against the real engine in virtual time, on the in-memory SQS with the scenario's faults. */
export async function runScenario(scenario: Scenario): Promise<RunRecord> {
  const time = new VirtualTime(START);
  const random = seededRandom(scenario.seed);
  const queueUrl = scenario.fifo ? `${QUEUE}.fifo` : QUEUE;
  const dlqUrl = scenario.fifo ? `${QUEUE}-dlq.fifo` : `${QUEUE}-dlq`;
  const queue = new MemorySqs({ queueUrl, now: time.now, timers: time, maxReceiveCount: MAX_RECEIVE_COUNT });
  const faults: FaultCounts = { refused: 0, answerLost: 0, duplicate: 0, partial: 0, forked: new Set(), lostReceives: new Map() };
  const scripts = new Map(scenario.messages.map((message) => [message.id, message]));
  const runs: HandlerRun[] = [];
  const scripted = new Map<string, number>();
  const keys = new Map<string, string>();
  const store = scenario.idempotency && new MemoryIdempotencyStore(time.now, scenario.idempotency, seededRandom(scenario.seed + 1));
  const handler = (message: WorkerMessage) => {
    const script = scripts.get(idOf(message.rawBody))!;
    keys.set(message.idempotencyKey, script.id);
    const elapsed = time.now() - START;
    const { outage } = scenario;
    const stretch = outage !== undefined && elapsed >= outage.fromMs && elapsed < outage.toMs ? outage.answer : undefined;
    const run = stretch ? 0 : (scripted.get(script.id) ?? 0) + 1;
    if (!stretch) scripted.set(script.id, run);
    const outcome: AttemptOutcome = stretch ?? script.outcomes[Math.min(run, script.outcomes.length) - 1]!;
    runs.push({ id: script.id, attempt: message.attempt, at: time.now(), outcome });
    return perform(outcome, message.signal);
  };
  const faulty = faultySqs(queue.client, scenario.faults, random, faults);
  const lives: Incarnation[] = [];
  let worker: SqsWorker | undefined;
  const startWorker = (): Promise<void> => {
    const life = new Incarnation();
    lives.push(life);
    worker = new SqsWorker({
      sqs: life.client(faulty),
      queueUrl,
      deadLetterQueueUrl: dlqUrl,
      handler: (message) => life.outlive(life.dead ? new Promise<void>(() => undefined) : handler(message)),
      retryPolicy: createRetryPolicy({ maxAttempts: scenario.maxAttempts }),
      maxInFlight: scenario.maxInFlight,
      handlerTimeoutMs: scenario.handlerTimeoutMs,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      ...(store ? { idempotency: { store: life.store(store) } } : {}),
      // One signing key for every process, as a deployment's secret gives them: a restarted
      // worker trusts the copies the one before it sent (their identity, their attempts).
      retryStateKeys: [RETRY_STATE_KEY],
      tracing: false,
      logger: silent,
      now: time.now,
      timers: time,
      random,
    });
    return worker.start();
  };
  for (const message of scenario.messages) queue.add(JSON.stringify({ id: message.id }), { groupId: message.group });
  await startWorker();
  const deadLetters = () => queue.sent.filter((sent) => sent.queueUrl === dlqUrl);
  const endedIds = () => {
    const over = new Set([...deadLetters().map((sent) => idOf(sent.body)), ...queue.redrivenBodies.map(idOf)]);
    for (const run of runs) if (run.outcome === 'ok') over.add(run.id);
    return over;
  };
  const ended = () => {
    const over = endedIds();
    return queue.remaining === 0 && scenario.messages.every((message) => over.has(message.id));
  };
  const crashed = new Set<string>();
  let deletedBeforeDeath = new Set<string>();
  let cancelCrash = () => {};
  if (scenario.crash) {
    const { atMs, restartAfterMs } = scenario.crash;
    cancelCrash = time.after(atMs, () => {
      const life = lives.at(-1)!;
      life.kill();
      deletedBeforeDeath = new Set(queue.deleted);
      cancelCrash = time.after(restartAfterMs, () => void startWorker());
    });
  }
  const settled = await time.runUntil(ended, START + HORIZON_MS);
  // Every message has ended: a crash still to come would only interrupt the stop.
  cancelCrash();
  // What the dead process held and had not deleted (its long poll under way included, which
  // SQS answered after it died) may end half done: hidden unrun, run and not deleted, run twice.
  for (const life of lives.filter((one) => one.dead)) for (const [messageId, body] of life.received) if (!deletedBeforeDeath.has(messageId)) crashed.add(body);
  const virtualMs = time.now() - START;
  // The worker stops in virtual time too: its drain, its last batches, its pollers' long polls.
  // A process that died is not stopped: it is gone.
  if (!lives.at(-1)!.dead) {
    let stopped = false;
    const stopping = worker!.stop().then(() => (stopped = true));
    await time.runUntil(() => stopped, time.now() + 3_600_000);
    await stopping;
  }
  queue.close();
  return {
    scenario,
    runs,
    deadLetters: deadLetters().map((sent) => {
      const record = JSON.parse(sent.attributes['x-dead-letter']?.StringValue ?? '{}') as { reason?: string; attempts?: number; error?: string };
      return { id: idOf(sent.body), reason: record.reason, attempts: record.attempts, error: record.error };
    }),
    redriven: queue.redrivenBodies.map(idOf),
    settled,
    virtualMs,
    faults: { refused: faults.refused, answerLost: faults.answerLost, duplicate: faults.duplicate, partial: faults.partial },
    forked: [...new Set([...faults.forked, ...crashed].map(idOf))],
    lostReceives: lostById(new Map([...faults.lostReceives, ...[...crashed].map((body) => [body, (faults.lostReceives.get(body) ?? 0) + 1] as const)])),
    completionsLost: store && [...[...store.completionsLost].map((key) => keys.get(key) ?? key), ...[...crashed].map(idOf)],
    sqsCalls: Object.values(queue.calls).reduce((sum, n) => sum + n, 0),
  };
}
