import { cappedExponentialMs } from '@requeue/retry/engine';
import { sleep } from '../time/sleep.js';

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
/** A retried agent call waits 100 ms, 200 ms, …, at most 2 s: the agent is local, so a longer wait only delays the drain. */
const AGENT_RETRY_BASE_MS = 100;
const AGENT_RETRY_CAP_MS = 2000;

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
    let answer: AgentAnswer;
    try {
      const body = enabled ? { ProtectionEnabled: true, ExpiresInMinutes: expiresInMinutes } : { ProtectionEnabled: false };
      // The agent answers itself: a redirect would send the task's call elsewhere.
      const signal = AbortSignal.timeout(timeoutMs);
      response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual', signal });
      answer = await readAnswer(response);
    } catch (cause) {
      throw new TaskProtectionError(`the ECS agent at ${agentUri} did not answer: ${(cause as Error).message}`, true, { cause });
    }
    if (response.status >= 300 && response.status < 400) {
      throw new TaskProtectionError(
        `the ECS agent at ${agentUri} answered ${response.status}, a redirect, which is not followed: its own answer is the only one trusted`,
        false,
      );
    }
    if (response.ok && answer.protection) return;
    if (answer.failure)
      throw new TaskProtectionError(
        `ECS refused task protection: ${answer.failure.Reason ?? 'no reason'}${answer.failure.Detail ? ` (${answer.failure.Detail})` : ''}`,
        false,
      );
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
          await sleep(cappedExponentialMs(AGENT_RETRY_BASE_MS, 2, attempt, AGENT_RETRY_CAP_MS));
        }
      }
    },
  };
}

/** The agent's answers are a few hundred bytes; a larger one is not read into memory. */
export const MAX_AGENT_ANSWER_BYTES = 64 * 1024;

/** The answer's JSON, read up to `MAX_AGENT_ANSWER_BYTES`; past that, or unreadable, an empty answer. */
async function readAnswer(response: Response): Promise<AgentAnswer> {
  const reader = response.body?.getReader();
  if (!reader) return {};
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_AGENT_ANSWER_BYTES) {
      await reader.cancel();
      return {};
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as AgentAnswer;
  } catch {
    return {};
  }
}
