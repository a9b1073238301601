import { sleep } from '../sleep.js';

/** What the worker asks of the agent: protect the task for so many minutes, or clear it. */
export interface ProtectionAgent {
  update(enabled: boolean, expiresInMinutes: number): Promise<void>;
}

/** The agent did not protect (or unprotect) the task. `retryable`: a later call may succeed. */
export class TaskProtectionError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TaskProtectionError';
  }
}

export interface EcsAgentOptions {
  /** Each call's deadline: the agent is on the task's own network, so a slow answer means trouble. @default 1000 */
  timeoutMs?: number;
  /** Further tries after a network failure, a timeout or a 5xx/throttle, with a doubling pause from 100 ms. @default 2 */
  retries?: number;
  /** For tests. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/** The documented answers: `protection` on success, `failure` when ECS refused the task, `error` when the call failed. */
interface AgentAnswer {
  protection?: { ProtectionEnabled?: boolean };
  failure?: { Reason?: string; Detail?: string | null };
  error?: { Code?: string; Message?: string };
}

const RETRYABLE_CODES = new Set(['ThrottlingException', 'ServerException', 'ServiceUnavailableException', 'RequestLimitExceeded']);

/**
 * The ECS container agent's task scale-in protection endpoint
 * (`PUT $ECS_AGENT_URI/task-protection/v1/state`, body
 * `{"ProtectionEnabled": true, "ExpiresInMinutes": N}`).
 */
export function ecsAgent(agentUri: string, options: EcsAgentOptions = {}): ProtectionAgent {
  const url = `${agentUri.replace(/\/+$/, '')}/task-protection/v1/state`;
  const { timeoutMs = 1000, retries = 2, fetch = globalThis.fetch } = options;
  const once = async (enabled: boolean, expiresInMinutes: number): Promise<void> => {
    let response: Response;
    try {
      const body = enabled ? { ProtectionEnabled: true, ExpiresInMinutes: expiresInMinutes } : { ProtectionEnabled: false };
      response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    } catch (cause) {
      throw new TaskProtectionError(`the ECS agent at ${agentUri} did not answer: ${(cause as Error).message}`, true, { cause });
    }
    const answer = (await response.json().catch(() => ({}))) as AgentAnswer;
    if (response.ok && answer.protection) return;
    if (answer.failure) throw new TaskProtectionError(`ECS refused task protection: ${answer.failure.Reason ?? 'no reason'}${answer.failure.Detail ? ` (${answer.failure.Detail})` : ''}`, false);
    const code = answer.error?.Code;
    const retryable = response.status >= 500 || response.status === 429 || (code !== undefined && RETRYABLE_CODES.has(code));
    throw new TaskProtectionError(`the ECS agent answered ${response.status}${code ? ` ${code}` : ''}: ${answer.error?.Message ?? 'no message'}`, retryable);
  };
  return {
    async update(enabled, expiresInMinutes) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(enabled, expiresInMinutes);
        } catch (error) {
          if (!(error instanceof TaskProtectionError) || !error.retryable || attempt >= retries) throw error;
          await sleep(100 * 2 ** attempt);
        }
      }
    },
  };
}
