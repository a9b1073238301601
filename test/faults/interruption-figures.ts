import { existsSync, readFileSync } from 'node:fs';
import type { AgentRequest } from '../support/ecs-agent-fake.js';
import type { ServiceTask } from './ecs-service.js';

/** One handler run in one task: begun at `start`, succeeded at `end`, or cut short (no end). */
interface Run {
  id: string;
  start: number;
  end?: number;
}

/** What the interruption harness measures (docs/infra.md, "Interruptions"). */
export interface InterruptionFigures {
  published: number;
  tasksStarted: number;
  spotInterruptions: number;
  scaleInStops: number;
  /** Scale-in stops of a task with a handler running at that moment. Target 0 with protection. */
  busyScaleInStops: number;
  /** Spot interruptions that found a handler running: those the warning must cover. */
  busySpotInterruptions: number;
  handlerRuns: number;
  /** Runs begun and never finished: every handler here fits the warning, so the target is 0. */
  cutRuns: number;
  /** Tasks still running at the end of Spot's warning, SIGKILLed. */
  killedTasks: number;
  lost: number;
  duplicates: number;
  protectionCalls: number;
  /** Spans of a task with handlers running, joined across gaps shorter than the protection's idle time. */
  busyPeriods: number;
  callsPerBusyPeriod: number;
  callsPerMessage: number;
}

function readLines(path: string): Array<{ id: string; at: number }> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; at: number });
}

/** Pairs each success with the latest unmatched start of the same id in the same task. */
function runsOf(task: ServiceTask): Run[] {
  const runs: Run[] = readLines(task.startsFile).map(({ id, at }) => ({ id, start: at }));
  for (const success of readLines(task.ledgerFile)) {
    const run = runs.filter((r) => r.id === success.id && r.end === undefined && r.start <= success.at).at(-1);
    if (run) run.end = success.at;
  }
  return runs;
}

const runningAt = (runs: Run[], at: number) => runs.some((run) => run.start <= at && (run.end ?? Infinity) > at);

/** Busy spans: runs sorted by start, a span going on while the next begins within `idleMs` of its end. */
function busyPeriods(runs: Run[], taskEnd: number, idleMs: number): number {
  let periods = 0;
  let spanEnd = -Infinity;
  for (const run of [...runs].sort((a, b) => a.start - b.start)) {
    if (run.start > spanEnd + idleMs) periods++;
    spanEnd = Math.max(spanEnd, run.end ?? taskEnd);
  }
  return periods;
}

export function interruptionFigures(
  tasks: ServiceTask[],
  publishedIds: ReadonlySet<string>,
  agentRequests: AgentRequest[],
  idleMs: number,
): InterruptionFigures {
  const succeeded = new Map<string, number>();
  let busyScaleInStops = 0;
  let busySpotInterruptions = 0;
  let handlerRuns = 0;
  let cutRuns = 0;
  let periods = 0;
  for (const task of tasks) {
    const runs = runsOf(task);
    handlerRuns += runs.length;
    cutRuns += runs.filter((run) => run.end === undefined).length;
    for (const run of runs) if (run.end !== undefined) succeeded.set(run.id, (succeeded.get(run.id) ?? 0) + 1);
    if (task.stop?.kind === 'scale-in' && runningAt(runs, task.stop.at)) busyScaleInStops++;
    if (task.stop?.kind === 'spot' && runningAt(runs, task.stop.at)) busySpotInterruptions++;
    periods += busyPeriods(runs, task.stop?.at ?? Date.now(), idleMs);
  }
  const protectionCalls = agentRequests.length;
  return {
    published: publishedIds.size,
    tasksStarted: tasks.length,
    spotInterruptions: tasks.filter((task) => task.stop?.kind === 'spot').length,
    scaleInStops: tasks.filter((task) => task.stop?.kind === 'scale-in').length,
    busyScaleInStops,
    busySpotInterruptions,
    handlerRuns,
    cutRuns,
    killedTasks: tasks.filter((task) => task.killed).length,
    lost: [...publishedIds].filter((id) => !succeeded.has(id)).length,
    duplicates: [...succeeded.values()].reduce((sum, count) => sum + count - 1, 0),
    protectionCalls,
    busyPeriods: periods,
    callsPerBusyPeriod: periods === 0 ? 0 : protectionCalls / periods,
    callsPerMessage: publishedIds.size === 0 ? 0 : protectionCalls / publishedIds.size,
  };
}
