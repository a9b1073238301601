import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../events/logger.js';
import { ecsAgent, TaskProtectionError, type ProtectionAgent } from './ecs-agent.js';
import { PROTECT_WAIT_MS, TaskProtection } from './task-protection.js';

/**
 * The agent's documented answers, through the client's `fetch` option: 200 `protection`,
 * 200 `failure` when ECS refuses the task, 400 `error` when throttled, or no answer.
 * (test/support/ecs-agent-fake.ts serves the same over HTTP for the engine's tests.)
 */
function agentAnswering(answers: Array<'protect' | 'task-not-valid' | 'throttle' | 'hang'>) {
  const requests: Array<{ method: string; url: string; body: unknown }> = [];
  const json = (status: number, payload: unknown) => new Response(JSON.stringify(payload), { status, headers: { 'content-type': 'application/json' } });
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push({ method: init?.method ?? 'GET', url: String(url), body: JSON.parse(String(init?.body)) });
    const answer = answers.shift() ?? 'protect';
    if (answer === 'hang') return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    if (answer === 'task-not-valid') return json(200, { failure: { Arn: 'arn:task', Reason: 'TASK_NOT_VALID', Detail: null } });
    if (answer === 'throttle') return json(400, { error: { Arn: 'arn:task', Code: 'ThrottlingException', Message: 'Rate exceeded' } });
    return json(200, { protection: { ProtectionEnabled: true, ExpirationDate: null, TaskArn: 'arn:task' } });
  };
  return { requests, fetch: fetch as typeof globalThis.fetch };
}

describe('the ECS agent endpoint', () => {
  const AGENT = 'http://169.254.170.2/api/task-id';

  it('protects for the minutes asked and clears, as the documented request shapes say', async () => {
    const fake = agentAnswering([]);
    const agent = ecsAgent(AGENT, { fetch: fake.fetch });
    await agent.update(true, 30);
    await agent.update(false, 30);
    expect(fake.requests).toEqual([
      { method: 'PUT', url: `${AGENT}/task-protection/v1/state`, body: { ProtectionEnabled: true, ExpiresInMinutes: 30 } },
      { method: 'PUT', url: `${AGENT}/task-protection/v1/state`, body: { ProtectionEnabled: false } },
    ]);
  });

  it('retries a throttled call, gives up on a refused task at once, and times out a hung agent', async () => {
    const fake = agentAnswering(['throttle', 'throttle', 'protect', 'task-not-valid', 'hang', 'hang']);
    const agent = ecsAgent(AGENT, { timeoutMs: 100, retries: 2, fetch: fake.fetch });
    await agent.update(true, 5);
    expect(fake.requests).toHaveLength(3);
    await expect(agent.update(true, 5)).rejects.toMatchObject({
      name: 'TaskProtectionError',
      retryable: false,
      message: expect.stringContaining('TASK_NOT_VALID'),
    });
    expect(fake.requests).toHaveLength(4);
    const hung = ecsAgent(AGENT, { timeoutMs: 100, retries: 1, fetch: fake.fetch });
    await expect(hung.update(true, 5)).rejects.toMatchObject({ retryable: true, message: expect.stringContaining('did not answer') });
    expect(fake.requests).toHaveLength(6);
  });
});

describe('TaskProtection', () => {
  afterEach(() => void vi.useRealTimers());

  function protection(agent: ProtectionAgent, idleMs = 10_000, expiresInMinutes = 10) {
    vi.useFakeTimers({ now: 0 });
    return new TaskProtection(agent, { idleMs, expiresInMinutes, now: () => Date.now(), logger: silentLogger });
  }
  const recording = () => {
    const calls: Array<[boolean, number]> = [];
    return { calls, agent: { update: async (enabled: boolean, minutes: number) => void calls.push([enabled, minutes]) } };
  };

  it('makes one call per busy period, not per message: protected on the first, cleared once idle for idleMs', async () => {
    const { calls, agent } = recording();
    const task = protection(agent);
    for (let i = 0; i < 1000; i++) {
      task.busy();
      task.idle();
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(calls).toEqual([[true, 10]]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toEqual([
      [true, 10],
      [false, 10],
    ]);
    expect(task.counts).toEqual({ enabled: 1, cleared: 1, renewed: 0, failed: 0 });
  });

  it('renews a minute before expiry while busy, and not once idle', async () => {
    const { calls, agent } = recording();
    const task = protection(agent, 10_000, 5);
    task.busy();
    await vi.advanceTimersByTimeAsync(4 * 60_000 + 1);
    expect(calls).toEqual([
      [true, 5],
      [true, 5],
    ]);
    task.idle();
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(calls).toEqual([
      [true, 5],
      [true, 5],
      [false, 5],
    ]);
  });

  it('counts and logs a failure without throwing, and tries again on the next busy period', async () => {
    const failing = { update: vi.fn(async () => Promise.reject(new TaskProtectionError('ECS refused task protection: TASK_NOT_VALID', false))) };
    const warn = vi.fn();
    vi.useFakeTimers({ now: 0 });
    const task = new TaskProtection(failing, { idleMs: 1000, expiresInMinutes: 10, now: () => Date.now(), logger: { ...silentLogger, warn } });
    task.busy();
    await vi.advanceTimersByTimeAsync(0);
    expect(task.counts.failed).toBe(1);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ protect: true }), expect.stringContaining('could not protect'));
    task.idle();
    task.busy();
    await vi.advanceTimersByTimeAsync(0);
    expect(failing.update).toHaveBeenCalledTimes(2);
  });

  it('lets the first handler start once the agent has answered, and waits for an agent in trouble once, then not until it answers in time', async () => {
    let answer: (() => void) | undefined;
    const settled: string[] = [];
    const agent = { update: vi.fn(() => new Promise<void>((resolve) => (answer = resolve))) };
    const task = protection(agent, 0);
    void task.busy()!.then(() => settled.push('answered'));
    await vi.advanceTimersByTimeAsync(10);
    expect(settled).toEqual([]);
    answer!();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual(['answered']);

    // Cleared once idle; the next enable hangs: the handler goes ahead after PROTECT_WAIT_MS.
    task.idle();
    await vi.advanceTimersByTimeAsync(1);
    answer!();
    void task.busy()!.then(() => settled.push('gave up'));
    await vi.advanceTimersByTimeAsync(PROTECT_WAIT_MS - 1);
    expect(settled).toEqual(['answered']);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual(['answered', 'gave up']);

    // It answers late: protected, but the next busy period does not wait for it.
    answer!();
    await vi.advanceTimersByTimeAsync(0);
    task.idle();
    await vi.advanceTimersByTimeAsync(1);
    expect(task.busy()).toBeUndefined();
    expect(agent.update).toHaveBeenCalledTimes(4);
  });

  it('clears a protection on stop, after the drain', async () => {
    const { calls, agent } = recording();
    const task = protection(agent);
    task.busy();
    await task.stop();
    expect(calls).toEqual([
      [true, 10],
      [false, 10],
    ]);
  });
});
