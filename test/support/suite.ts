import type { RetryPolicyInput } from '@requeue/retry';
import type { MessageHandler, SqsWorker, SqsWorkerOptions } from '@requeue/sqs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type QueuePair } from './emulator.js';
import { startEngine } from './engine-worker.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export interface EmulatorSuiteOptions {
  /**
   * The file's tests run at once (`describe.concurrent`): what a test started is stopped
   * when the file ends, not when the test does, since an `afterEach` cannot tell which
   * concurrent test started what. @default false
   */
  concurrent?: boolean;
}

/**
 * One emulator for a test file, started before its tests and stopped after them; the
 * worker processes and in-process engines a test starts are stopped when it ends (pass or
 * fail), or when the file ends for a concurrent file.
 */
export function emulatorSuite({ concurrent = false }: EmulatorSuiteOptions = {}) {
  let emulator: Emulator | undefined;
  const workers: WorkerProcess[] = [];
  const engines: SqsWorker[] = [];
  const stopStarted = async () => {
    for (const worker of workers.splice(0)) worker.child.kill('SIGKILL');
    await Promise.all(engines.splice(0).map((engine) => engine.stop({ drainTimeoutMs: 0 })));
  };
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  if (!concurrent) afterEach(stopStarted);
  afterAll(async () => {
    await stopStarted();
    await emulator?.stop();
  });
  const suite = {
    get emulator(): Emulator {
      if (!emulator) throw new Error('the emulator starts in beforeAll: use it inside a test');
      return emulator;
    },
    /** Kills the worker at the end of the current test (of the file, when concurrent). */
    track(worker: WorkerProcess): WorkerProcess {
      workers.push(worker);
      return worker;
    },
    /**
     * The worker app as its own process on these queues and the emulator, with the
     * simulation handler and 1 s long polls unless `env` says otherwise; killed at the end
     * of the current test (of the file, when concurrent).
     */
    async workerProcess(queues: QueuePair, env: Record<string, string> = {}): Promise<WorkerProcess> {
      const worker = await startWorkerProcess({
        WORKER_QUEUE_URL: queues.queueUrl,
        WORKER_DLQ_URL: queues.dlqUrl,
        AWS_ENDPOINT_URL: suite.emulator.endpoint,
        WORKER_HANDLER: 'simulation',
        WORKER_WAIT_TIME_SECONDS: '1',
        ...env,
      });
      return suite.track(worker);
    },
    /** The engine in this process on these queues (see `startEngine`), stopped at the end of the current test (of the file, when concurrent). */
    async engine(queues: QueuePair, handler: MessageHandler, policy: RetryPolicyInput = {}, extra: Partial<SqsWorkerOptions> = {}): Promise<SqsWorker> {
      const engine = await startEngine(suite.emulator, queues, handler, policy, extra);
      engines.push(engine);
      return engine;
    },
  };
  return suite;
}
