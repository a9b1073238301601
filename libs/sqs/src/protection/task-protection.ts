import type { WorkerLogger } from '../events/logger.js';
import { sleep } from '../time/sleep.js';
import { realTimers, type CancelTimer, type WorkerTimers } from '../time/timers.js';
import type { ProtectionAgent } from './ecs-agent.js';

/** How long a stopping worker waits for its last protection call. */
const STOP_WAIT_MS = 2000;

/**
 * How long the first handler of a busy period waits for the agent's answer. The agent is
 * on the task's own network and answers in milliseconds; protection holds only once it
 * has answered, so a scale-in decided meanwhile finds no handler running yet.
 */
export const PROTECT_WAIT_MS = 250;

export interface TaskProtectionSettings {
  /** How long the task stays protected once idle, so that a trickle of messages costs no call per message. */
  idleMs: number;
  /** Each protection's lifetime: longer than the visibility timeout and the longest handler, renewed while busy. */
  expiresInMinutes: number;
  now: () => number;
  /** @default Node's timers */
  timers?: WorkerTimers;
  logger: WorkerLogger;
}

/** What the protection did, as `health().taskProtection` reports it: every call, and the failures among them. */
interface ProtectionCounts {
  enabled: number;
  cleared: number;
  renewed: number;
  failed: number;
}

/**
 * ECS task scale-in protection following the worker's activity: protected when it goes
 * from idle to busy, renewed before it expires while busy, cleared once idle for `idleMs`.
 * One call per transition, never per message. Calls run one at a time, in order; a call
 * that fails is logged and counted, and never fails or drops a message: the task is then
 * as unprotected as it would be without this. The first handler of a busy period waits
 * for the agent at most `PROTECT_WAIT_MS`, and not at all while its last call failed or
 * missed that bound, so an agent in trouble holds up no message beyond one such wait.
 */
export class TaskProtection {
  readonly counts: ProtectionCounts = { enabled: 0, cleared: 0, renewed: 0, failed: 0 };
  private busyNow = false;
  private protectedUntil = 0;
  private cancelClear: CancelTimer | undefined;
  private cancelRenewal: CancelTimer | undefined;
  private readonly timers: WorkerTimers;
  private calls: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The last call answered within `PROTECT_WAIT_MS`: worth waiting for the next one. */
  private answersInTime = true;

  constructor(
    private readonly agent: ProtectionAgent,
    private readonly settings: TaskProtectionSettings,
  ) {
    this.timers = settings.timers ?? realTimers;
  }

  /**
   * A handler is about to start after idling: protect, unless a protection still holds.
   * Resolves (never rejects) when the handler may start: once the agent has answered, or
   * after `PROTECT_WAIT_MS`; undefined when there is nothing to wait for.
   */
  busy(): Promise<void> | undefined {
    this.busyNow = true;
    this.cancelClear?.();
    this.cancelClear = undefined;
    if (this.stopped || this.protectedUntil > this.settings.now()) return undefined;
    const answered = this.call(true, 'enabled');
    if (!this.answersInTime) return undefined;
    const gaveUp = new AbortController();
    return Promise.race([answered, sleep(PROTECT_WAIT_MS, gaveUp.signal, this.timers).then(() => false)]).then((inTime) => {
      gaveUp.abort();
      if (!inTime) this.answersInTime = false;
    });
  }

  /** The last handler finished: clear the protection after `idleMs` without a new one. */
  idle(): void {
    this.busyNow = false;
    if (this.stopped || this.cancelClear !== undefined || this.protectedUntil === 0) return;
    const clear = () => {
      this.cancelClear = undefined;
      if (!this.busyNow) void this.call(false, 'cleared');
    };
    this.cancelClear = this.timers.after(this.settings.idleMs, clear, true);
  }

  /**
   * Stops the timers and clears a protection that is on: a drained worker may be stopped.
   * Waits for the agent at most `STOP_WAIT_MS`: a hung agent never holds up a shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelClear?.();
    this.cancelRenewal?.();
    if (this.protectedUntil > 0) void this.call(false, 'cleared');
    const gaveUp = new AbortController();
    await Promise.race([this.calls, sleep(STOP_WAIT_MS, gaveUp.signal, this.timers)]);
    gaveUp.abort();
  }

  /** Queues a call; resolves true once it succeeded, false once it failed. */
  private call(enabled: boolean, outcome: 'enabled' | 'cleared' | 'renewed'): Promise<boolean> {
    const { expiresInMinutes, now, logger } = this.settings;
    // Counted as protected from the moment it is asked for, so the handlers that follow ask no more.
    this.protectedUntil = enabled ? now() + expiresInMinutes * 60_000 : 0;
    this.cancelRenewal?.();
    if (enabled) this.scheduleRenewal();
    const result = this.calls.then(async () => {
      const startedAt = now();
      try {
        await this.agent.update(enabled, expiresInMinutes);
        this.counts[outcome]++;
        this.answersInTime = now() - startedAt < PROTECT_WAIT_MS;
        return true;
      } catch (error) {
        this.counts.failed++;
        this.answersInTime = false;
        if (enabled) this.protectedUntil = 0;
        logger.warn(
          { err: error, protect: enabled },
          enabled
            ? 'could not protect the task from scale-in; messages go on as usual'
            : "could not clear the task's scale-in protection; it expires on its own",
        );
        return false;
      }
    });
    this.calls = result.then(() => undefined);
    return result;
  }

  /** A minute before it lapses, while still busy, the protection is extended. */
  private scheduleRenewal(): void {
    const renewInMs = Math.max(1000, (this.settings.expiresInMinutes - 1) * 60_000);
    const renew = () => {
      if (this.busyNow && !this.stopped) void this.call(true, 'renewed');
    };
    this.cancelRenewal = this.timers.after(renewInMs, renew, true);
  }
}
