import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom, type Random } from '@requeue/retry/engine';
import { eventually, startEmulator, type Emulator, type QueuePair } from '../support/emulator.js';
import { sendAll, simulation, type Outgoing } from '../support/publish.js';
import { startWorkerProcess, waitUntilReady, type WorkerProcess } from '../support/worker-process.js';
import { account, endedIds, type Accounting, type ExpectedEnd } from './accounting.js';

export interface ScenarioReport {
  scenario: string;
  messages: number;
  faults: string;
  accounting: Accounting;
  durationSeconds: number;
  /** Anything the scenario itself checks beyond accounting: exit codes, health, log volume. */
  notes: string[];
}

/** Retries in a second or two, so a run with thousands of transient failures ends in minutes. */
const FAST_RETRIES = JSON.stringify({
  types: {
    TEMPORARY: { backoff: { type: 'exponential', baseMs: 500, multiplier: 2 }, maxDelayMs: 2000 },
    DEFAULT: { backoff: { type: 'exponential', baseMs: 500, multiplier: 2 }, maxDelayMs: 2000 },
  },
});

export interface Workload {
  messages: Outgoing[];
  expected: Map<string, ExpectedEnd>;
}

/** 60% ok, 30% transient failing 1-3 times, 10% permanent; each with a little work. */
export function mixedWorkload(count: number, random: Random, prefix: string, maxDurationMs: number): Workload {
  const messages: Outgoing[] = [];
  const expected = new Map<string, ExpectedEnd>();
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    const roll = random();
    const durationMs = Math.floor(random() * maxDurationMs);
    if (roll < 0.6) {
      messages.push(simulation(id, { outcome: 'ok', durationMs }));
      expected.set(id, { kind: 'succeeded' });
    } else if (roll < 0.9) {
      messages.push(simulation(id, { outcome: 'transient', failTimes: 1 + Math.floor(random() * 3), durationMs }));
      expected.set(id, { kind: 'succeeded' });
    } else {
      messages.push(simulation(id, { outcome: 'permanent', durationMs }));
      expected.set(id, { kind: 'dead-lettered', reason: 'non-retryable' });
    }
  }
  return { messages, expected };
}

/** The worker process on these queues with the simulation handler and 1 s long polls: what every fault scenario runs. */
export function simulationWorkerEnv(emulator: Emulator, queues: QueuePair, maxInFlight: number): Record<string, string> {
  return {
    WORKER_QUEUE_URL: queues.queueUrl,
    WORKER_DLQ_URL: queues.dlqUrl,
    AWS_ENDPOINT_URL: emulator.endpoint,
    WORKER_HANDLER: 'simulation',
    WORKER_WAIT_TIME_SECONDS: '1',
    WORKER_MAX_IN_FLIGHT: String(maxInFlight),
  };
}

function workerEnv(emulator: Emulator, queues: QueuePair, ledger: string, maxInFlight: number, idempotency: string | undefined): Record<string, string> {
  return {
    // Keyed by the message: a crash's redelivery is the same message again. The handler
    // timeout bounds how long a kill's in-progress record holds its redelivery back.
    ...(idempotency ? { WORKER_IDEMPOTENCY: idempotency, WORKER_HANDLER_TIMEOUT_MS: '5000' } : {}),
    ...simulationWorkerEnv(emulator, queues, maxInFlight),
    SIMULATION_LEDGER: ledger,
    RETRY_POLICY: FAST_RETRIES,
  };
}

/**
 * Once the queue looks empty, waits (up to `timeoutMs`) until every published id has ended
 * in the ledger or the DLQ. Queue counts are approximate, on SQS and on an emulator
 * restored from its data directory alike, so a queue that looks empty is no proof that
 * every message has ended; a message still on its way is not a lost one. The DLQ is
 * peeked at (hidden for a second), not consumed.
 */
export async function untilAccounted(
  emulator: Emulator,
  dlqUrl: string,
  expected: ReadonlyMap<string, ExpectedEnd>,
  ledgerPath: string,
  timeoutMs: number,
): Promise<void> {
  await eventually(
    async () => {
      const ended = endedIds(ledgerPath, await emulator.drain(dlqUrl, 1));
      // Let the peeked dead letters become visible again before the next look, or the final drain.
      await sleep(1100);
      return [...expected.keys()].every((id) => ended.has(id)) ? true : undefined;
    },
    timeoutMs,
    'every message to end in the ledger or the DLQ',
  ).catch(() => undefined);
}

/** Waits until the main queue holds nothing (visible, in flight or delayed) on two checks a second apart. */
export async function settled(emulator: Emulator, queueUrl: string, timeoutMs: number): Promise<void> {
  let quietChecks = 0;
  await eventually(
    async () => {
      const depth = await emulator.depth(queueUrl);
      quietChecks = depth.visible + depth.inFlight + depth.delayed === 0 ? quietChecks + 1 : 0;
      if (quietChecks >= 2) return true;
      await sleep(1000);
      return undefined;
    },
    timeoutMs,
    'the queue to empty',
  );
}

async function stopGracefully(worker: WorkerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return worker.exited;
  worker.child.kill('SIGTERM');
  return worker.exited;
}

export interface RestartScenarioOptions {
  messages: number;
  restarts: number;
  signal: 'SIGKILL' | 'SIGTERM';
  maxInFlight: number;
  /** A worker runs for a random time in [min, max] ms before it is signalled. */
  uptimeMs: [number, number];
  maxDurationMs: number;
  seed: number;
  timeoutMs: number;
  /** `WORKER_IDEMPOTENCY` for the worker, e.g. a Redis URL. @default off */
  idempotency?: string;
  onProgress?: (line: string) => void;
}

/**
 * Publishes a mixed workload, then signals the worker process at random moments and
 * restarts it each time, as a crash loop (SIGKILL) or a rolling deploy (SIGTERM) would.
 * Ends when the queue is empty, then accounts for every id.
 */
export async function runRestartScenario(options: RestartScenarioOptions): Promise<ScenarioReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const emulator = await startEmulator();
  const notes: string[] = [];
  let worker: WorkerProcess | undefined;
  try {
    const queues = await emulator.createQueues({ visibilityTimeoutSeconds: 5 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-faults-')), 'ledger.jsonl');
    const workload = mixedWorkload(options.messages, random, options.signal === 'SIGKILL' ? 'kill' : 'term', options.maxDurationMs);
    await sendAll(emulator.sqs, queues.queueUrl, workload.messages);
    const env = workerEnv(emulator, queues, ledger, options.maxInFlight, options.idempotency);
    const badExits: string[] = [];
    for (let restart = 0; restart <= options.restarts; restart++) {
      worker = await startWorkerProcess(env);
      await waitUntilReady(worker, 30_000);
      if (restart === options.restarts) break;
      const [min, max] = options.uptimeMs;
      await sleep(min + random() * (max - min));
      worker.child.kill(options.signal);
      const exit = await worker.exited;
      if (options.signal === 'SIGTERM' && exit.code !== 0) badExits.push(`exit ${exit.code ?? exit.signal}: ${worker.output().slice(-500)}`);
      options.onProgress?.(`${options.signal} ${restart + 1}/${options.restarts}`);
    }
    await settled(emulator, queues.queueUrl, options.timeoutMs);
    await untilAccounted(emulator, queues.dlqUrl, workload.expected, ledger, 30_000);
    const exit = await stopGracefully(worker!);
    if (exit.code !== 0) badExits.push(`final exit ${exit.code ?? exit.signal}`);
    if (badExits.length > 0) notes.push(`unclean exits after ${options.signal}: ${badExits.join('; ')}`);
    const deadLetters = await emulator.drain(queues.dlqUrl);
    return {
      scenario: `${options.signal === 'SIGKILL' ? 'crash loop (SIGKILL)' : 'graceful restarts (SIGTERM)'}${options.idempotency ? ', idempotency on (Redis)' : ''}`,
      messages: options.messages,
      faults: `${options.restarts} × ${options.signal}`,
      accounting: account(workload.expected, ledger, deadLetters),
      durationSeconds: (Date.now() - started) / 1000,
      notes,
    };
  } finally {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await emulator.stop();
  }
}

export interface OutageScenarioOptions {
  messages: number;
  outageMs: number;
  maxInFlight: number;
  maxDurationMs: number;
  seed: number;
  timeoutMs: number;
}

export interface OutageReport extends ScenarioReport {
  /** `/health/ready` answered 503 at some point during the outage. */
  reportedNotReady: boolean;
  /** ...and 200 again afterwards. */
  readyAgain: boolean;
  workerExitedDuringRun: boolean;
  /** Warn lines about failed receives over the whole outage: each poller logs its 1st, 2nd, 4th, 8th... failure. */
  receiveFailureLogLines: number;
}

/**
 * Stops the emulator (persisted with a data dir) mid-run for `outageMs`, then starts it
 * again on the same port. The worker must survive, say it is not ready, and resume.
 */
export async function runOutageScenario(options: OutageScenarioOptions): Promise<OutageReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const dataDir = mkdtempSync(join(tmpdir(), 'requeue-fauxqs-'));
  // Any free port at first; the restart takes the same one back.
  let emulator = await startEmulator({ dataDir });
  const { port } = emulator;
  let worker: WorkerProcess | undefined;
  try {
    const queues = await emulator.createQueues({ visibilityTimeoutSeconds: 5 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-faults-')), 'ledger.jsonl');
    const workload = mixedWorkload(options.messages, random, 'outage', options.maxDurationMs);
    await sendAll(emulator.sqs, queues.queueUrl, workload.messages);
    worker = await startWorkerProcess({ ...workerEnv(emulator, queues, ledger, options.maxInFlight, undefined), LOG_LEVEL: 'warn' });
    await waitUntilReady(worker, 30_000);
    await sleep(1500);

    await emulator.server.stop();
    const outageStarted = Date.now();
    let reportedNotReady = false;
    while (Date.now() - outageStarted < options.outageMs) {
      const status = await fetch(`http://127.0.0.1:${worker.healthPort}/health/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 503) reportedNotReady = true;
      await sleep(250);
    }
    const workerExitedDuringOutage = worker.child.exitCode !== null || worker.child.signalCode !== null;
    const receiveFailureLogLines = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('receive failed')).length;
    emulator = await startEmulator({ port, dataDir });

    const current = worker;
    const readyAgain = await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${current.healthPort}/health/ready`).then(
          (r) => r.status,
          () => 0,
        )) === 200
          ? true
          : undefined,
      30_000,
      'ready after the outage',
    ).then(
      () => true,
      () => false,
    );
    await settled(emulator, queues.queueUrl, options.timeoutMs);
    await untilAccounted(emulator, queues.dlqUrl, workload.expected, ledger, 30_000);
    const workerExitedDuringRun = workerExitedDuringOutage || worker.child.exitCode !== null || worker.child.signalCode !== null;
    await stopGracefully(worker);
    const deadLetters = await emulator.drain(queues.dlqUrl);
    return {
      scenario: 'emulator outage',
      messages: options.messages,
      faults: `SQS down ${options.outageMs / 1000} s`,
      accounting: account(workload.expected, ledger, deadLetters),
      durationSeconds: (Date.now() - started) / 1000,
      notes: [],
      reportedNotReady,
      readyAgain,
      workerExitedDuringRun,
      receiveFailureLogLines,
    };
  } finally {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await emulator.stop();
  }
}
