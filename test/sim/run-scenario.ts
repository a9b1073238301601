import { createRetryPolicy, NonRetryableError } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, type WorkerLogger, type WorkerMessage } from '@requeue/sqs';
import { VirtualTime } from '@requeue/sqs/time';
import { SqsFake } from '../support/sqs-fake.js';
import { crashableSqs } from './crash.js';
import { faultySqs, type FaultCounts } from './faulty-sqs.js';
import type { AttemptOutcome, Scenario } from './scenario.js';

const QUEUE = 'http://127.0.0.1/000000000000/sim';
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
  /** When the worker process died, and the messages it held (received, not deleted), once per receive. */
  crash?: { at: number; victims: string[] };
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

/** The handler: each message's scripted outcomes, run by run, every run recorded. */
function scriptedHandler(scenario: Scenario, runs: HandlerRun[], time: VirtualTime) {
  const scripts = new Map(scenario.messages.map((message) => [message.id, message]));
  return (message: WorkerMessage) => {
    const script = scripts.get(idOf(message.rawBody))!;
    const run = runs.filter((earlier) => earlier.id === script.id).length + 1;
    const outcome = script.outcomes[Math.min(run, script.outcomes.length) - 1]!;
    runs.push({ id: script.id, attempt: message.attempt, at: time.now(), outcome });
    return perform(outcome, message.signal);
  };
}

/** The scenario's retry policy and limits. */
function policyOf(scenario: Scenario): Pick<WorkerSettings, 'retryPolicy' | 'maxInFlight' | 'handlerTimeoutMs'> {
  return {
    retryPolicy: createRetryPolicy({ maxAttempts: scenario.maxAttempts }),
    maxInFlight: scenario.maxInFlight,
    handlerTimeoutMs: scenario.handlerTimeoutMs,
  };
}

/** The settings every worker process of a run starts with. */
type WorkerSettings = Omit<ConstructorParameters<typeof SqsWorker>[0], 'sqs' | 'handler'>;

/**
 * One worker process: its engine on its own crashable client. Its handler records runs
 * only while the process lives; a dead process's handlers never answer.
 */
async function startProcess(settings: WorkerSettings, sqs: SQSClient, run: (message: WorkerMessage) => Promise<void>) {
  const client = crashableSqs(sqs);
  let alive = true;
  const worker = new SqsWorker({ ...settings, sqs: client.client, handler: (message) => (alive ? run(message) : new Promise<void>(() => {})) });
  await worker.start();
  return {
    worker,
    held: client.held,
    crash: () => {
      alive = false;
      client.crash();
    },
  };
}

/** Runs one scenario against the real engine in virtual time, on the in-memory SQS with the scenario's faults. */
export async function runScenario(scenario: Scenario): Promise<RunRecord> {
  const time = new VirtualTime(START);
  const random = seededRandom(scenario.seed);
  const queueUrl = scenario.fifo ? `${QUEUE}.fifo` : QUEUE;
  const dlqUrl = scenario.fifo ? `${QUEUE}-dlq.fifo` : `${QUEUE}-dlq`;
  const queue = new SqsFake({ queueUrl, now: time.now, timers: time, maxReceiveCount: 10 });
  const faults: FaultCounts = { refused: 0, answerLost: 0, duplicate: 0, forked: new Set(), lostReceives: new Map() };
  const runs: HandlerRun[] = [];
  const handler = scriptedHandler(scenario, runs, time);
  const settings: WorkerSettings = {
    queueUrl,
    deadLetterQueueUrl: dlqUrl,
    ...policyOf(scenario),
    maxReceiveCount: 10,
    tracing: false,
    logger: silent,
    now: time.now,
    timers: time,
    random,
  };
  const sqs = faultySqs(queue.client, scenario.faults, random, faults);
  for (const message of scenario.messages) queue.add(JSON.stringify({ id: message.id }), { groupId: message.group });
  let current = await startProcess(settings, sqs, handler);
  // The crashed process's held messages are read as they are asked for: a receive under way at the crash adds to them.
  let crash: { at: number; held: () => string[] } | undefined;
  const crashRecord = (): RunRecord['crash'] => crash && { at: crash.at, victims: crash.held().map(idOf) };
  let restarted: Promise<unknown> = Promise.resolve();
  const cancelCrash =
    scenario.crashAtMs === undefined
      ? () => {}
      : time.after(scenario.crashAtMs, () => {
          current.crash();
          crash = { at: time.now(), held: current.held };
          restarted = startProcess(settings, sqs, handler).then((next) => (current = next));
        });
  const deadLetters = () => queue.sent.filter((sent) => sent.queueUrl === dlqUrl);
  const ended = () => {
    const over = new Set([...deadLetters().map((sent) => idOf(sent.body)), ...queue.redrivenBodies.map(idOf)]);
    for (const run of endingRuns(runs, crashRecord())) over.add(run.id);
    return queue.remaining === 0 && scenario.messages.every((message) => over.has(message.id));
  };
  const settled = await time.runUntil(ended, START + HORIZON_MS);
  const virtualMs = time.now() - START;
  cancelCrash();
  await restarted;
  // The worker stops in virtual time too: its drain, its last batches, its pollers' long polls.
  let stopped = false;
  const stopping = current.worker.stop().then(() => (stopped = true));
  await time.runUntil(() => stopped, time.now() + 3_600_000);
  await stopping;
  queue.close();
  return {
    scenario,
    runs,
    deadLetters: deadLetters().map(deadLetterOf),
    redriven: queue.redrivenBodies.map(idOf),
    settled,
    virtualMs,
    faults: { refused: faults.refused, answerLost: faults.answerLost, duplicate: faults.duplicate },
    forked: [...new Set([...faults.forked].map(idOf))],
    lostReceives: lostById(faults.lostReceives),
    ...(crash ? { crash: crashRecord() } : {}),
    sqsCalls: Object.values(queue.calls).reduce((sum, n) => sum + n, 0),
  };
}

function deadLetterOf(sent: { body: string; attributes: Record<string, { StringValue?: string | undefined }> }): DeadLetter {
  const record = JSON.parse(sent.attributes['x-dead-letter']?.StringValue ?? '{}') as { reason?: string; attempts?: number };
  return { id: idOf(sent.body), reason: record.reason, attempts: record.attempts };
}

/**
 * The successful runs that end a message: a success the crashed process had for a message
 * it still held was never deleted, so the message must end again after the crash.
 */
export function endingRuns(runs: readonly HandlerRun[], crash: RunRecord['crash']): HandlerRun[] {
  const victims = new Set(crash?.victims);
  return runs.filter((run) => run.outcome === 'ok' && !(crash && victims.has(run.id) && run.at <= crash.at));
}
