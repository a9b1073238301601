import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { workerNodeOptions } from '@requeue/cdk';
import { rotatingRounds } from '../peers/rounds.js';

export { TRACING_MODES, type RunResult, type RunSpec, type TracingMode } from './spec.js';
import type { RunResult, RunSpec } from './spec.js';

const runFile = promisify(execFile);
const RUN = fileURLToPath(new URL('./run.js', import.meta.url));

/** Runs one spec in a process of its own, with V8 sized as the stack sizes it for the default 512 MB task. */
export async function runEngine(spec: RunSpec): Promise<RunResult> {
  const { stdout } = await runFile(process.execPath, [...workerNodeOptions(512).split(' '), RUN, JSON.stringify(spec)]);
  return JSON.parse(stdout) as RunResult;
}

/** Every spec once a round, each round starting one further on, so no spec is always first after a pause. */
export function inRounds(specs: readonly RunSpec[], rounds: number, onRound: (round: number) => void): Promise<RunResult[][]> {
  return rotatingRounds(specs.length, rounds, (i, round) => {
    // The first of each round is the one it starts at.
    if (i === round % specs.length) onRound(round);
    return runEngine(specs[i]!);
  });
}
