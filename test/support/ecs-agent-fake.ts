import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers: as the agent does on success, when ECS refuses the task, when ECS throttles, or not at all. */
export type AgentBehaviour = 'protect' | 'task-not-valid' | 'throttle' | 'hang';

/** A request the fake received. */
export interface AgentRequest {
  method: string;
  path: string;
  body: unknown;
}

/** The fake agent: `uri` is one task's `ECS_AGENT_URI`, `uriFor` another's; each task's protection is its own. */
export interface FakeAgent {
  uri: string;
  uriFor(taskId: string): string;
  /** Whether ECS would spare the task from a scale-in now: protected, and not expired. */
  isProtected(taskId?: string): boolean;
  requests: AgentRequest[];
  close(): Promise<void>;
}

const DEFAULT_TASK = 'task-id';

/**
 * The ECS agent's task protection endpoint as its documentation describes it:
 * `PUT /task-protection/v1/state` with `{"ProtectionEnabled": bool, "ExpiresInMinutes"?: 1-2880}`;
 * 200 `{"protection": {...}}`, 200 `{"failure": {"Arn","Reason","Detail"}}` when ECS refuses
 * the task, 4xx `{"error": {"Arn","Code","Message"}}` for a bad request or a throttled call.
 */
export async function startFakeAgent(behaviours: AgentBehaviour[] = []): Promise<FakeAgent> {
  const requests: AgentRequest[] = [];
  const protectedUntil = new Map<string, number>();
  const taskArn = 'arn:aws:ecs:us-east-1:123456789012:task/requeue/0123456789abcdef';
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = parse(text);
      requests.push({ method: request.method ?? '', path: request.url ?? '', body });
      const behaviour = behaviours.shift() ?? 'protect';
      if (behaviour === 'hang') return;
      const send = (status: number, payload: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      const invalid = invalidRequest(request.method, request.url, body);
      if (invalid) return send(400, { error: { Arn: taskArn, Code: 'InvalidParameterException', Message: invalid } });
      if (behaviour === 'task-not-valid') return send(200, { failure: { Arn: taskArn, Reason: 'TASK_NOT_VALID', Detail: null } });
      if (behaviour === 'throttle') return send(400, { error: { Arn: taskArn, Code: 'ThrottlingException', Message: 'Rate exceeded' } });
      const { ProtectionEnabled, ExpiresInMinutes = 120 } = body as { ProtectionEnabled: boolean; ExpiresInMinutes?: number };
      const until = ProtectionEnabled ? Date.now() + ExpiresInMinutes * 60_000 : 0;
      protectedUntil.set(taskOf(request.url ?? ''), until);
      const expiration = ProtectionEnabled ? new Date(until).toISOString() : null;
      send(200, { protection: { ExpirationDate: expiration, ProtectionEnabled, TaskArn: taskArn } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const uriFor = (taskId: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/${taskId}`;
  return {
    uri: uriFor(DEFAULT_TASK),
    uriFor,
    isProtected: (taskId = DEFAULT_TASK) => (protectedUntil.get(taskId) ?? 0) > Date.now(),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `/api/<task>/task-protection/v1/state`: the agent URI names its task. */
function taskOf(url: string): string {
  return /^\/api\/([^/]+)\//.exec(url)?.[1] ?? DEFAULT_TASK;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function invalidRequest(method: string | undefined, url: string | undefined, body: unknown): string | undefined {
  if (method !== 'PUT' || !url?.endsWith('/task-protection/v1/state')) return `unsupported: ${method} ${url}`;
  const { ProtectionEnabled, ExpiresInMinutes } = (body ?? {}) as { ProtectionEnabled?: unknown; ExpiresInMinutes?: unknown };
  if (typeof ProtectionEnabled !== 'boolean') return 'ProtectionEnabled is required and must be a boolean';
  if (ExpiresInMinutes !== undefined && (!Number.isInteger(ExpiresInMinutes) || (ExpiresInMinutes as number) < 1 || (ExpiresInMinutes as number) > 2880))
    return 'ExpiresInMinutes must be 1 to 2880';
  return undefined;
}
