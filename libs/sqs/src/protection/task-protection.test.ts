import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import { ecsAgent, TaskProtectionError, type ProtectionAgent } from './ecs-agent.js';
import { startFakeAgent } from '../../../../test/support/ecs-agent-fake.js';
import { PROTECT_WAIT_MS, TaskProtection } from './task-protection.js';

describe('the ECS agent endpoint', () => {
  it('protects for the minutes asked and clears, as the documented request shapes say', async () => {
    const fake = await startFakeAgent();
    try {
      const agent = ecsAgent(fake.uri);
      await agent.update(true, 30);
      await agent.update(false, 30);
      expect(fake.requests).toEqual([
        { method: 'PUT', path: '/api/task-id/task-protection/v1/state', body: { ProtectionEnabled: true, ExpiresInMinutes: 30 } },
        { method: 'PUT', path: '/api/task-id/task-protection/v1/state', body: { ProtectionEnabled: false } },
      ]);
    } finally {
      await fake.close();
    }
  });

  it('retries a throttled call, gives up on a refused task at once, and times out a hung agent', async () => {
    const fake = await startFakeAgent(['throttle', 'throttle', 'protect', 'task-not-valid', 'hang', 'hang']);
    try {
      const agent = ecsAgent(fake.uri, { timeoutMs: 100, retries: 2 });
      await agent.update(true, 5);
      expect(fake.requests).toHaveLength(3);
      await expect(agent.update(true, 5)).rejects.toMatchObject({ name: 'TaskProtectionError', retryable: false, message: expect.stringContaining('TASK_NOT_VALID') });
      expect(fake.requests).toHaveLength(4);
      const hung = ecsAgent(fake.uri, { timeoutMs: 100, retries: 1 });
      await expect(hung.update(true, 5)).rejects.toMatchObject({ retryable: true, message: expect.stringContaining('did not answer') });
      expect(fake.requests).toHaveLength(6);
    } finally {
      await fake.close();
    }
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
    expect(calls).toEqual([[true, 10], [false, 10]]);
    expect(task.counts).toEqual({ enabled: 1, cleared: 1, renewed: 0, failed: 0 });
  });

  it('renews a minute before expiry while busy, and not once idle', async () => {
    const { calls, agent } = recording();
    const task = protection(agent, 10_000, 5);
    task.busy();
    await vi.advanceTimersByTimeAsync(4 * 60_000 + 1);
    expect(calls).toEqual([[true, 5], [true, 5]]);
    task.idle();
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(calls).toEqual([[true, 5], [true, 5], [false, 5]]);
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
    expect(calls).toEqual([[true, 10], [false, 10]]);
  });
});
