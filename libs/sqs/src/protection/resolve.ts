import { outOfRange } from '@requeue/retry/engine';
import { SqsWorkerConfigError } from '../errors.js';
import type { WorkerLogger } from '../events/logger.js';
import type { SqsWorkerOptions } from '../options.js';
import { ecsAgent } from './ecs-agent.js';
import { TaskProtection } from './task-protection.js';
import type { WorkerTimers } from '../time/timers.js';

/** The `taskProtection` option: `false`, or where the agent is and how long protection lasts. */
type TaskProtectionOption = SqsWorkerOptions['taskProtection'];

/**
 * The task's scale-in protection, on when the ECS agent is there to ask (`ECS_AGENT_URI`,
 * which ECS sets in every container) unless turned off. Protection outlasts the visibility
 * timeout and the longest handler by five minutes, so a handler never outlives it.
 */
export function taskProtectionFor(
  option: TaskProtectionOption,
  context: { visibilityTimeoutSeconds: number; handlerTimeoutMs: number; now: () => number; timers: WorkerTimers; logger: WorkerLogger },
  env: Readonly<Record<string, string | undefined>> = process.env,
): TaskProtection | undefined {
  if (option === false) return undefined;
  const agentUri = option?.agentUri ?? env.ECS_AGENT_URI;
  if (!agentUri) return undefined;
  if (!/^https?:\/\//.test(agentUri))
    throw new SqsWorkerConfigError('taskProtection.agentUri', `must be the agent's http URL (ECS_AGENT_URI), got ${JSON.stringify(agentUri)}`);
  const longest = Math.max(context.handlerTimeoutMs, context.visibilityTimeoutSeconds * 1000);
  const expiresInMinutes = option?.expiresInMinutes ?? Math.min(2880, Math.ceil(longest / 60_000) + 5);
  const idleMs = option?.idleMs ?? 10_000;
  for (const [name, value, min, max] of [
    ['expiresInMinutes', expiresInMinutes, 1, 2880],
    ['idleMs', idleMs, 0, 3_600_000],
  ] as const) {
    const problem = outOfRange(value, { min, max });
    if (problem) throw new SqsWorkerConfigError(`taskProtection.${name}`, problem);
  }
  return new TaskProtection(ecsAgent(agentUri), { idleMs, expiresInMinutes, now: context.now, timers: context.timers, logger: context.logger });
}
