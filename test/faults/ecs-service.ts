import { join } from 'node:path';
import type { Random } from '@requeue/retry/engine';
import type { FakeAgent } from '../support/ecs-agent-fake.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

/** Why a task was told to stop. */
export type StopKind = 'scale-in' | 'spot' | 'final';

/** A task the service started: its worker process and the files its handler runs append to. */
export interface ServiceTask {
  id: string;
  worker: WorkerProcess;
  startsFile: string;
  ledgerFile: string;
  startedAt: number;
  /** When it was told to stop, and why; unset while it runs. */
  stop?: { at: number; kind: StopKind };
  /** SIGKILLed at the end of Spot's warning, still running. */
  killed: boolean;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

export interface EcsServiceOptions {
  /** The worker's environment, shared by every task. */
  env: Record<string, string>;
  /** Where each task's handler files go. */
  dir: string;
  /** The fake ECS agent; each task gets its own `ECS_AGENT_URI` on it. Unset: no agent, as off ECS. */
  agent?: FakeAgent;
  /** Spot's warning: a task still running this long after its SIGTERM is SIGKILLed. */
  spotWarningMs: number;
  random: Random;
}

/**
 * An ECS service as far as interruptions go: it keeps `desired` tasks running, starting
 * replacements at once; on scale-in it stops only tasks whose scale-in protection holds
 * not (as ECS does: a protected task is skipped, and a later pass retries); a Spot
 * interruption SIGTERMs any task and SIGKILLs it when the warning runs out.
 */
export class EcsService {
  readonly tasks: ServiceTask[] = [];
  private desired = 0;
  private started = 0;

  constructor(private readonly options: EcsServiceOptions) {}

  /** Tasks not told to stop. */
  get running(): ServiceTask[] {
    return this.tasks.filter((task) => task.stop === undefined);
  }

  get desiredCount(): number {
    return this.desired;
  }

  /** Sets the desired count and moves toward it: starts tasks, or stops unprotected ones. */
  scaleTo(desired: number): void {
    this.desired = desired;
    this.reconcile();
  }

  /** One pass of the scheduler: replacements for stopped tasks, scale-in of unprotected ones. */
  reconcile(): void {
    while (this.running.length < this.desired) this.startTask();
    const unprotected = this.running.filter((task) => !this.options.agent?.isProtected(task.id));
    let excess = this.running.length - this.desired;
    while (excess-- > 0 && unprotected.length > 0) {
      const task = unprotected.splice(Math.floor(this.options.random() * unprotected.length), 1)[0]!;
      this.stopTask(task, 'scale-in');
    }
  }

  /** A Spot interruption of a random running task, whatever its protection; the service replaces it. */
  interruptSpot(): ServiceTask | undefined {
    const running = this.running;
    if (running.length === 0) return undefined;
    const task = running[Math.floor(this.options.random() * running.length)]!;
    this.stopTask(task, 'spot');
    this.reconcile();
    return task;
  }

  /** Stops every task gracefully, as a deployment's end would, and waits for their exits. */
  async stopAll(): Promise<void> {
    this.desired = 0;
    for (const task of this.running) this.stopTask(task, 'final');
    await Promise.all(this.tasks.map((task) => task.worker.exited));
  }

  private startTask(): void {
    const id = `task-${++this.started}`;
    const startsFile = join(this.options.dir, `${id}.starts.jsonl`);
    const ledgerFile = join(this.options.dir, `${id}.ledger.jsonl`);
    const agentEnv: Record<string, string> = this.options.agent ? { ECS_AGENT_URI: this.options.agent.uriFor(id) } : {};
    const worker = startWorkerProcess({ ...this.options.env, ...agentEnv, SIMULATION_STARTS: startsFile, SIMULATION_LEDGER: ledgerFile });
    const task: ServiceTask = { id, worker, startsFile, ledgerFile, startedAt: Date.now(), killed: false };
    void worker.exited.then((exit) => (task.exit = exit));
    this.tasks.push(task);
  }

  private stopTask(task: ServiceTask, kind: StopKind): void {
    task.stop = { at: Date.now(), kind };
    task.worker.child.kill('SIGTERM');
    if (kind !== 'spot') return;
    const kill = setTimeout(() => {
      if (task.exit) return;
      task.killed = true;
      task.worker.child.kill('SIGKILL');
    }, this.options.spotWarningMs);
    void task.worker.exited.then(() => clearTimeout(kill));
  }
}
