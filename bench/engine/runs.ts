import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { workerNodeOptions } from '@requeue/cdk';
import { rotatingRounds } from '../peers/rounds.js';

/**
 * Tracing as WORKER_TRACING=off, on with no SDK registered, on with the Node SDK, and on
 * with the same SDK's bare spans (nothing set on them, no context made active).
 */
export const TRACING_MODES = ['off', 'no-sdk', 'sdk', 'sdk-floor'] as const;
export type TracingMode = (typeof TRACING_MODES)[number];

/** One run of the engine alone (run.ts). */
export interface RunSpec {
  tracing: TracingMode;
  messages: number;
  /** A `traceparent` on every message. */
  tracedIn: boolean;
  /** How long every SQS call takes to answer. */
  latencyMs: number;
  /** Each call answers up to this much sooner or later than `latencyMs`, evenly spread. */
  latencySpreadMs?: number;
  handlerMs: number;
  maxInFlight: number;
  /** Undefined: the worker's default (`maxInFlight`). */
  prefetch?: number;
  /** Undefined: the worker's default. */
  pollers?: number;
  /** Tenants on, read from `body.tenant`, which no message names: one tenant, the happy path's cost of turning them on. */
  tenants?: boolean;
  /** The handlers slow down for the last `lastMessages` (a dependency that degrades): each takes `handlerMs` instead. */
  slowdown?: { lastMessages: number; handlerMs: number };
}

export interface RunResult {
  cpuMicrosPerMessage: number;
  messagesPerSecond: number;
  /** Messages given back unstarted (visibility 0), per message done. */
  givenBackPerMessage: number;
  /** The most receives any one message took before it was done: 1 when none was given back. */
  mostReceives: number;
  /** Messages the queue's redrive (maxReceiveCount 5) moved to the DLQ: given back so often that they never ran. */
  redriven: number;
  /** SQS calls of every kind per message, from the start to the last delete. */
  callsPerMessage: number;
}

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
