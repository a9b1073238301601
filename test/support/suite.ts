import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type Emulator } from './emulator.js';
import type { WorkerProcess } from './worker-process.js';

/**
 * One emulator for a test file, started before its tests and stopped after them, and the
 * worker processes a test starts, killed when it ends (pass or fail).
 */
export function emulatorSuite() {
  let emulator: Emulator | undefined;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterEach(() => {
    for (const worker of workers.splice(0)) worker.child.kill('SIGKILL');
  });
  afterAll(async () => {
    await emulator?.stop();
  });
  return {
    get emulator(): Emulator {
      if (!emulator) throw new Error('the emulator starts in beforeAll: use it inside a test');
      return emulator;
    },
    /** Kills the worker at the end of the current test. */
    track(worker: WorkerProcess): WorkerProcess {
      workers.push(worker);
      return worker;
    },
  };
}
