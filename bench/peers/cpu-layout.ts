import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * How the emulator shares the machine with the system under test. The emulator stands for
 * SQS, which runs on other machines. Left to the scheduler on a small machine, the
 * emulator and the worker are moved from CPU to CPU after each other, and a worker that
 * waits on a 15 ms round trip (so sleeps and wakes more often) paid about 15% more CPU
 * per message for it than the same worker on loopback: the latency rows measured the
 * scheduler, not the engine. Pinned to the last CPU, the emulator stays put and the
 * systems share the rest (and the last CPU's idle time) alike.
 */
export interface CpuLayout {
  /** The command and arguments that start `argv` as the emulator. */
  emulatorCommand(argv: string[]): { command: string; args: string[] };
  /** In a sentence, for the report. */
  description: string;
}

/** Pins the emulator with `taskset` when the machine has two CPUs or more and `taskset` runs; else leaves it to the scheduler. */
export function cpuLayout(): CpuLayout {
  const cpus = availableParallelism();
  const tasksetRuns = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
  if (cpus < 2 || !tasksetRuns) {
    return {
      emulatorCommand: (argv) => ({ command: argv[0]!, args: argv.slice(1) }),
      description: `the emulator shares the ${cpus} CPU(s) with the systems (${tasksetRuns ? 'one CPU only' : 'no taskset'}, so not pinned)`,
    };
  }
  const last = String(cpus - 1);
  return {
    emulatorCommand: (argv) => ({ command: 'taskset', args: ['--cpu-list', last, ...argv] }),
    description: `the emulator pinned to CPU ${last} (taskset), the systems and the driver free to use all ${cpus}`,
  };
}
