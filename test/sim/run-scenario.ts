import { createRetryPolicy, NonRetryableError } from '@requeue/retry';
import { seededRandom, type Random } from '@requeue/retry/engine';
import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, type WorkerLogger, type WorkerMessage } from '@requeue/sqs';
import { VirtualTime } from '@requeue/sqs/time';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { faultySqs, type FaultCounts } from './faulty-sqs.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { DependencyLoad, slowAnswer } from './fleet.js';
import { Incarnation } from './mortal.js';
import type { AttemptOutcome, Scenario, ScriptedMessage } from './scenario.js';

const QUEUE = 'http://127.0.0.1/000000000000/sim';
const RETRY_STATE_KEY = 'sim-retry-state-key-0123456789abcdef';
/** The queue's redrive: a message received this many times leaves at its next receive. */
export const MAX_RECEIVE_COUNT = 10;
/** How long a run may take in virtual time before what is left counts as stuck. */
const HORIZON_MS = 12 * 3_600_000;
const START = Date.UTC(2026, 0, 1);
/** More sends per message than this (copies and dead letters) and the messages are multiplying: at most 6 attempts, 10 receives. */
export const RUNAWAY_SENDS_PER_MESSAGE = 50;

/** One run of a handler: which message, which attempt, when, and what it did. */
export interface HandlerRun {
  id: string;
  attempt: number;
  at: number;
  /** When it answered or was aborted; unset while it runs, or if its process died under it. */
  endedAt?: number;
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
  /** Messages the worker sent: retry copies and dead letters. */
  sends: number;
  /** The most handler runs waiting on the dependency at once: in one worker process, and across the fleet. */
  peakLoad: { perProcess: number; fleet: number };
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

/**
 * The quiet tenant's messages, by index: at the back of what one worker first holds (its
 * handlers and as many prefetched) and within the first receive's ten, behind the other
 * tenant's burst. The simulated SQS does not deliver as a fair queue does (bringing a
 * tenant with no backlog forward), so what is checked is the worker's part: turns among
 * what it has received.
 */
export function quietIndexes(scenario: Scenario): Set<number> {
  const last = Math.min(9, 2 * scenario.maxInFlight - 1, scenario.messages.length - 1);
  const quiet = Math.min(scenario.tenants?.quiet ?? 0, last);
  return new Set(Array.from({ length: quiet }, (_, i) => last - i));
}

/** The queue's message attributes for a message: its tenant, when the scenario has tenants. */
function attributesOf(scenario: Scenario, index: number, quiet: Set<number>): Record<string, MessageAttributeValue> | undefined {
  if (!scenario.tenants) return undefined;
  return { tenant: { DataType: 'String', StringValue: quiet.has(index) ? QUIET_TENANT : 'loud' } };
}

/** The tenant the scenario's last messages belong to, published behind the other's burst. */
export const QUIET_TENANT = 'quiet';

/**
 * One scenario's world: the simulated SQS in virtual time, the scripted dependency, and the
 * worker processes, each of which may die and be replaced.
 */
class Simulation {
  readonly time = new VirtualTime(START);
  readonly random: Random;
  readonly queueUrl: string;
  readonly dlqUrl: string;
  readonly queue: MemorySqs;
  readonly load = new DependencyLoad();
  readonly faults: FaultCounts = { refused: 0, answerLost: 0, duplicate: 0, partial: 0, forked: new Set(), lostReceives: new Map() };
  readonly runs: HandlerRun[] = [];
  readonly keys = new Map<string, string>();
  readonly store: MemoryIdempotencyStore | undefined;
  /** Every process that ran, in start order; `current[i]` is the i-th worker's living one. */
  readonly lives: Incarnation[] = [];
  readonly current: Array<{ life: Incarnation; worker: SqsWorker }> = [];
  private readonly scripts: Map<string, ScriptedMessage>;
  private readonly scripted = new Map<string, number>();
  private readonly faulty: SQSClient;

  constructor(readonly scenario: Scenario) {
    this.random = seededRandom(scenario.seed);
    this.queueUrl = scenario.fifo ? `${QUEUE}.fifo` : QUEUE;
    this.dlqUrl = scenario.fifo ? `${QUEUE}-dlq.fifo` : `${QUEUE}-dlq`;
    const { time } = this;
    this.queue = new MemorySqs({
      queueUrl: this.queueUrl,
      now: time.now,
      timers: time,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      visibilityTimeoutSeconds: scenario.visibilityTimeoutSeconds,
    });
    this.store = scenario.idempotency && new MemoryIdempotencyStore(time.now, scenario.idempotency, seededRandom(scenario.seed + 1));
    this.scripts = new Map(scenario.messages.map((message) => [message.id, message]));
    this.faulty = faultySqs(this.queue.client, scenario.faults, this.random, this.faults);
    const quiet = quietIndexes(scenario);
    scenario.messages.forEach((message, index) => {
      const attributes = attributesOf(scenario, index, quiet);
      this.queue.add(JSON.stringify({ id: message.id }), { groupId: message.group, ...(attributes ? { attributes } : {}) });
    });
  }

  /** The scripted dependency: this run's outcome, after its latency, recorded with when it started and ended. */
  private handle(message: WorkerMessage, life: Incarnation): Promise<void> {
    const { scenario, time } = this;
    const script = this.scripts.get(idOf(message.rawBody))!;
    this.keys.set(message.idempotencyKey, script.id);
    const elapsed = time.now() - START;
    const { outage } = scenario;
    const stretch = outage !== undefined && elapsed >= outage.fromMs && elapsed < outage.toMs ? outage.answer : undefined;
    const n = stretch ? 0 : (this.scripted.get(script.id) ?? 0) + 1;
    if (!stretch) this.scripted.set(script.id, n);
    const outcome: AttemptOutcome = stretch ?? script.outcomes[Math.min(n, script.outcomes.length) - 1]!;
    const run: HandlerRun = { id: script.id, attempt: message.attempt, at: time.now(), outcome };
    this.runs.push(run);
    const answered = slowAnswer(time.after.bind(time), scenario.latencyMs, message.signal).then(
      () => perform(outcome, message.signal),
      (reason: unknown) => {
        // Aborted (its timeout) before the slow dependency answered: the scripted outcome never happened.
        run.outcome = 'hangs';
        throw reason;
      },
    );
    this.load.track(life, message.signal, answered);
    return answered.finally(() => {
      if (!life.dead) run.endedAt = time.now();
    });
  }

  /** Starts the `slot`-th worker process: a new life, with nothing of the one before it but the shared key and store. */
  startWorker(slot: number): Promise<void> {
    const { scenario, time, store } = this;
    const life = new Incarnation();
    this.lives.push(life);
    const worker = new SqsWorker({
      sqs: life.client(this.faulty),
      queueUrl: this.queueUrl,
      deadLetterQueueUrl: this.dlqUrl,
      handler: (message) => life.outlive(life.dead ? new Promise<void>(() => undefined) : this.handle(message, life)),
      retryPolicy: createRetryPolicy({ maxAttempts: scenario.maxAttempts }),
      maxInFlight: scenario.maxInFlight,
      handlerTimeoutMs: scenario.handlerTimeoutMs,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      ...(store ? { idempotency: { store: life.store(store) } } : {}),
      ...(scenario.tenants ? { tenants: { key: 'attribute.tenant', maxInFlight: '50%' } } : {}),
      // One signing key for every process, as a deployment's secret gives them: a restarted
      // worker trusts the copies the one before it sent (their identity, their attempts).
      retryStateKeys: [RETRY_STATE_KEY],
      tracing: false,
      logger: silent,
      now: time.now,
      timers: time,
      random: this.random,
    });
    this.current[slot] = { life, worker };
    return worker.start();
  }

  /** Every message has ended (succeeded or dead-lettered) and the queue holds nothing. */
  ended(): boolean {
    const over = new Set([...this.deadLetters().map((sent) => idOf(sent.body)), ...this.queue.redrivenBodies.map(idOf)]);
    for (const run of this.runs) if (run.outcome === 'ok') over.add(run.id);
    return this.queue.remaining === 0 && this.scenario.messages.every((message) => over.has(message.id));
  }

  /** Copies and dead letters past any retry policy's count: messages multiplying. The run stops there rather than run for hours. */
  runaway(): boolean {
    return this.queue.sent.length > RUNAWAY_SENDS_PER_MESSAGE * this.scenario.messages.length;
  }

  deadLetters() {
    return this.queue.sent.filter((sent) => sent.queueUrl === this.dlqUrl);
  }

  /**
   * At `atMs` the first worker process dies mid-step, and another starts `restartAfterMs`
   * later. Returns what may end half done: the bodies the dead process received and had
   * not deleted (its long poll under way included, which SQS answered after it died).
   */
  scheduleCrash(crash: NonNullable<Scenario['crash']>): { cancel: () => void; crashed: () => Set<string> } {
    let deletedBeforeDeath = new Set<string>();
    let cancel = this.time.after(crash.atMs, () => {
      const { life } = this.current[0]!;
      life.kill();
      this.load.died(life);
      deletedBeforeDeath = new Set(this.queue.deleted);
      cancel = this.time.after(crash.restartAfterMs, () => void this.startWorker(0));
    });
    const crashed = () => {
      const bodies = new Set<string>();
      for (const life of this.lives.filter((one) => one.dead))
        for (const [messageId, body] of life.received) if (!deletedBeforeDeath.has(messageId)) bodies.add(body);
      return bodies;
    };
    return { cancel: () => cancel(), crashed };
  }

  /** The living workers stop in virtual time too: their drain, last batches, long polls. A dead process is gone, not stopped. */
  async stopAll(): Promise<void> {
    const living = this.current.filter(({ life }) => !life.dead);
    let stopped = 0;
    const stopping = Promise.all(living.map(({ worker }) => worker.stop().then(() => stopped++)));
    await this.time.runUntil(() => stopped === living.length, this.time.now() + 3_600_000);
    await stopping;
  }
}

/** Runs one scenario against the real engine in virtual time, on the in-memory SQS with the scenario's faults. */
export async function runScenario(scenario: Scenario): Promise<RunRecord> {
  const sim = new Simulation(scenario);
  for (let slot = 0; slot < scenario.workers; slot++) await sim.startWorker(slot);
  const crash = scenario.crash ? sim.scheduleCrash(scenario.crash) : undefined;
  const settled = await sim.time.runUntil(() => sim.ended() || sim.runaway(), START + HORIZON_MS);
  // Every message has ended: a crash still to come would only interrupt the stop.
  crash?.cancel();
  const crashed = crash?.crashed() ?? new Set<string>();
  const virtualMs = sim.time.now() - START;
  await sim.stopAll();
  sim.queue.close();
  return recordOf(sim, settled, virtualMs, crashed);
}

function recordOf(sim: Simulation, settled: boolean, virtualMs: number, crashed: Set<string>): RunRecord {
  const { faults, store } = sim;
  return {
    scenario: sim.scenario,
    runs: sim.runs,
    deadLetters: sim.deadLetters().map((sent) => {
      const record = JSON.parse(sent.attributes['x-dead-letter']?.StringValue ?? '{}') as { reason?: string; attempts?: number; error?: string };
      return { id: idOf(sent.body), reason: record.reason, attempts: record.attempts, error: record.error };
    }),
    redriven: sim.queue.redrivenBodies.map(idOf),
    settled,
    virtualMs,
    faults: { refused: faults.refused, answerLost: faults.answerLost, duplicate: faults.duplicate, partial: faults.partial },
    forked: [...new Set([...faults.forked, ...crashed].map(idOf))],
    lostReceives: lostById(new Map([...faults.lostReceives, ...[...crashed].map((body) => [body, (faults.lostReceives.get(body) ?? 0) + 1] as const)])),
    completionsLost: store && [...[...store.completionsLost].map((key) => sim.keys.get(key) ?? key), ...[...crashed].map(idOf)],
    sqsCalls: Object.values(sim.queue.calls).reduce((sum, n) => sum + n, 0),
    sends: sim.queue.sent.length,
    peakLoad: { perProcess: sim.load.peakPerProcess, fleet: sim.load.peakFleet },
  };
}
