import { cappedExponentialMs, type Random } from '@requeue/retry/engine';
import { AimdLimit } from './aimd-limit.js';
import { breakerResult, type Admission, type CallOutcome, type DependencySnapshot, type DependencyTicket } from './admission.js';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.js';
import { DispatchPace } from './dispatch-pace.js';
import { FleetMembership } from './fleet-membership.js';
import type { FleetMemberState, FleetView } from './fleet-state.js';
import type { ResolvedBackpressure } from './options.js';
import { realTimers, type CancelTimer, type WorkerTimers } from '../time/timers.js';
import { RateLimitEvidence } from './rate-limit-evidence.js';

type RateLimited = Extract<CallOutcome, { kind: 'rate-limited' }>;

type Verdict = Admission | { kind: 'wait'; retryAt: number | undefined };

interface Waiter {
  resolve: (admission: Admission) => void;
  sampled: boolean;
}

/**
 * The gate in front of one dependency: its circuit breaker, its adaptive concurrency
 * limit and its rate-limit pause. Messages that may not run yet either wait here, in
 * order, when the wait is short, or are deferred through SQS when it is not.
 */
export class Dependency {
  private readonly breaker: CircuitBreaker | undefined;
  private readonly limit: AimdLimit | undefined;
  private running = 0;
  private pausedUntil = 0;
  private consecutivePauses = 0;
  /** When the last counted 429 landed: the end of one pace cycle and the start of the next. */
  private lastRateLimitAt: number | undefined;
  private waiters: Waiter[] = [];
  private readonly pace: DispatchPace | undefined;
  private cancelWake: CancelTimer | undefined;
  private stopped = false;
  /** This gate's part in its fleet, when the worker shares state with one. */
  private readonly fleet: FleetMembership | undefined;
  /** Just recovered, calls wait (up to the store's timeout) for the fleet's latest view. */
  private awaitingFleetUntil = 0;
  private readonly evidence: RateLimitEvidence;
  lastUsedAt: number;

  constructor(
    readonly key: string,
    private readonly options: ResolvedBackpressure,
    private readonly maxInFlight: number,
    private readonly now: () => number,
    random: Random,
    onBreakerTransition: (key: string, state: BreakerState) => void = () => undefined,
    /** Something the fleet should hear of at once: a 429, a pace learnt, a breaker's move. */
    private readonly onPushBack: (key: string) => void = () => undefined,
    private readonly timers: WorkerTimers = realTimers,
  ) {
    const transition = (state: BreakerState) => {
      onBreakerTransition(key, state);
      if (state === 'closed') this.recovered();
      onPushBack(key);
    };
    this.breaker = options.breaker ? new CircuitBreaker(options.breaker, now, random, transition) : undefined;
    this.limit = options.adaptiveConcurrency ? new AimdLimit({ min: 1, max: maxInFlight, decreaseFactor: options.decreaseFactor }, now) : undefined;
    this.pace = options.adaptiveConcurrency ? new DispatchPace() : undefined;
    this.fleet = options.fleet ? new FleetMembership(options.fleet, now) : undefined;
    this.evidence = new RateLimitEvidence(options.rateLimitEvidence);
    this.lastUsedAt = now();
  }

  /**
   * The message may run, must be deferred, or (once it resolves) the worker stops: at once
   * when the gate can say, else a promise that resolves when it can. Only first
   * attempts are `sampled` into the breaker's window: retries are the messages that
   * already failed once, and the tail of a backlog, all retries, would otherwise look
   * like an outage. Probes count whatever they are.
   */
  admit(sampled = true): Admission | Promise<Admission> {
    this.lastUsedAt = this.now();
    const verdict = this.waiters.length === 0 ? this.evaluate(sampled) : undefined;
    // Answered at once when nothing waits: the common case, which then costs no promise.
    if (verdict && verdict.kind !== 'wait') return verdict;
    const overflow = this.pacedOverflowUntil(this.waiters.length + 1);
    if (overflow !== undefined) return { kind: 'defer', untilMs: overflow, cause: 'rate-limited' };
    if (verdict) this.wakeAt(verdict.retryAt);
    return new Promise((resolve) => this.waiters.push({ resolve, sampled }));
  }

  /** Reports how a call admitted by `admit` ended. */
  finish(ticket: DependencyTicket, outcome: CallOutcome): void {
    this.running = Math.max(0, this.running - 1);
    const now = this.now();
    if (ticket.breaker && (ticket.sampled || ticket.breaker.probe)) this.breaker?.record(ticket.breaker, breakerResult(outcome));
    if (outcome.kind === 'success') {
      this.consecutivePauses = 0;
      this.evidence.succeeded(now);
      this.limit?.onSuccess();
      this.pace?.onSuccess(now, this.startedThisCycle(ticket.startedAt));
    } else if (outcome.kind === 'unavailable' && this.breaker?.state !== 'closed') {
      // A 503 the breaker does not confirm (it stays closed) is one message's bad luck: a
      // 30% mix of them would otherwise halve the limit every round trip, down to 1.
      this.limit?.onOverload(ticket.startedAt);
    }
    if (outcome.kind === 'rate-limited') this.rateLimited(ticket, outcome, now);
    this.pump();
  }

  /**
   * A message's first 429 acts on the dependency: one rejected again on its retry is that
   * message's own limit, and its retries re-measuring the pace from the few calls let
   * through since would spiral every other message down to one call every few seconds.
   * It takes enough first 429s (`RateLimitEvidence`) until the dependency pushes back.
   * A 429 while the dependency still admits some calls re-measures the pace and pauses
   * nothing: a pause would leave its allowance unused for the whole Retry-After, and every
   * worker of a fleet would resume together into a full bucket. One when nothing got
   * through since the last (or before any pace is learnt) pauses every call. Calls that
   * started by the last 429 belong to its burst.
   */
  private rateLimited({ startedAt }: DependencyTicket, { firstRateLimit = true, retryAfterMs }: RateLimited, now: number): void {
    if (!(this.evidence.record(now, firstRateLimit) || this.pushingBack) || !firstRateLimit) return;
    this.limit?.onOverload(startedAt);
    if (!this.startedThisCycle(startedAt)) return;
    const cycleStartedAt = this.lastRateLimitAt;
    this.lastRateLimitAt = now;
    // Capped, Retry-After too: the key comes from a message, and a publisher who points it
    // at a host answering `Retry-After: 999999999` must not stop the worker for years.
    // The message itself still waits its Retry-After, within its deadline.
    const backoffMs = cappedExponentialMs(this.options.rateLimitPauseMs, 2, this.consecutivePauses, this.options.maxPauseMs);
    const pauseMs = Math.min(this.options.maxPauseMs, retryAfterMs ?? backoffMs);
    const stillAdmitting = this.pace?.onRateLimited(now, pauseMs, cycleStartedAt) ?? false;
    if (this.pace?.measuredAt === now) this.fleet?.measured();
    if (!stillAdmitting) {
      this.consecutivePauses++;
      this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
    }
    this.onPushBack(this.key);
  }

  /** Whether the dependency pushes back: paced, paused or its breaker not closed. Only then does a fleet share state. */
  get pushingBack(): boolean {
    return (this.pace?.active ?? false) || this.pausedUntil > this.now() || (this.breaker !== undefined && this.breaker.state !== 'closed');
  }

  /** What this worker reports to the fleet about the dependency. */
  memberState(workerId: string): FleetMemberState {
    if (!this.fleet) throw new Error('memberState: this gate is not part of a fleet');
    return this.fleet.report(workerId, this.pace, this.breaker?.state ?? 'off', this.pausedUntil, this.breaker?.recoveredAt ?? 0);
  }

  /**
   * Applies what the fleet's other workers reported. One that saw the dependency recover
   * since this breaker opened makes it probe now; the rest waits for calls (`joinFleet`).
   */
  applyFleet(view: FleetView): void {
    this.awaitingFleetUntil = 0;
    this.fleet?.read(view, this.pace);
    this.joinFleet(false);
    if (this.breaker && this.fleet?.recoveredSince(this.breaker.openedAt)) this.breaker.probeNow();
    this.pump();
  }

  /**
   * The breaker closed. In a fleet, the view it holds may be a second old, and another
   * worker may have recovered and been rejected since: the calls waiting here go once the
   * exchange its closing set off answers (or the store's timeout passes), not before.
   */
  private recovered(): void {
    this.joinFleet(true);
    if (this.options.fleet) this.awaitingFleetUntil = this.now() + this.options.fleet.timeoutMs;
  }

  /**
   * Calls at this worker's share of the rate the fleet is admitted at, so that one whose
   * breaker closes late starts at its share instead of taking the burst the others left.
   * Joining (its breaker just closing, or not paced yet), it also waits out the fleet's
   * longest pause after a 429. Not while its breaker is open or probing: the probe is what
   * finds out, and a report must not keep it from running. Once paced it does not either:
   * its pace is its share, and paced workers pausing together would resume together into
   * a full bucket.
   */
  private joinFleet(closing: boolean): void {
    const recovering = this.breaker !== undefined && this.breaker.state !== 'closed';
    const terms = this.fleet?.terms(closing || recovering || !(this.pace?.active ?? false), this.pace);
    if (!terms) return;
    const now = this.now();
    if (!recovering) this.pausedUntil = Math.max(this.pausedUntil, Math.min(terms.pausedUntil, now + this.options.maxPauseMs));
    // A breaker not closed takes its share when it closes, from the view it has then.
    if (terms.sharePerSecond === undefined || recovering || !this.pace) return;
    this.pace.adopt(terms.sharePerSecond, now);
    this.fleet?.adopted();
  }

  /** Whether a call started after the last 429: one that started by then belongs to its burst. */
  private startedThisCycle(startedAt: number): boolean {
    return this.lastRateLimitAt === undefined || startedAt > this.lastRateLimitAt;
  }

  /**
   * A paced dependency drains its queue at its pace: a message that would wait there
   * longer than `holdMs` goes back to SQS instead, visible again when its wait would be
   * down to `holdMs`, so that a faster worker of the fleet (or this one, then) runs it
   * rather than this one holding it.
   */
  private pacedOverflowUntil(position: number): number | undefined {
    if (!this.pace?.active) return undefined;
    const now = this.now();
    const runsAt = this.pace.dispatchAtPosition(now, position);
    return runsAt - now > this.options.holdMs ? runsAt - this.options.holdMs : undefined;
  }

  /**
   * Until when receiving more for this dependency is pointless: it is blocked, or paced
   * with as many queued as it dispatches within `holdMs`.
   */
  busyUntil(): number | undefined {
    return this.blockedUntil() ?? this.pacedOverflowUntil(this.waiters.length + 1);
  }

  /** Until when nothing may be dispatched, or undefined when something may. */
  blockedUntil(): number | undefined {
    const now = this.now();
    const until = Math.max(this.pausedUntil, this.breaker?.state === 'open' ? this.breaker.probeAt : 0);
    return until > now ? until : undefined;
  }

  /**
   * Until when a failed call's message waits without using an attempt, when the
   * dependency's state confirms the failure is the dependency's: paused, its breaker
   * open, or a 429 (the message waits its own Retry-After; at least `rateLimitPauseMs`
   * while too few 429s have come to pace or pause the dependency). Undefined when the
   * failure is the message's own.
   */
  confirmedUntil(call: CallOutcome): number | undefined {
    if (call.kind === 'neutral' || call.kind === 'success') return undefined;
    const blocked = this.blockedUntil();
    if (blocked !== undefined) return blocked;
    if (call.kind !== 'rate-limited') return undefined;
    return this.now() + (this.pace?.active ? 0 : this.options.rateLimitPauseMs);
  }

  get idle(): boolean {
    return this.running === 0 && this.waiters.length === 0 && this.blockedUntil() === undefined && (this.breaker?.state ?? 'closed') === 'closed';
  }

  snapshot(): DependencySnapshot {
    return {
      key: this.key,
      breaker: this.breaker?.state ?? 'off',
      concurrencyLimit: this.limit?.current ?? this.maxInFlight,
      inFlight: this.running,
      waiting: this.waiters.length,
      blockedUntil: this.blockedUntil(),
    };
  }

  /** Releases every waiting message: the worker is shutting down. */
  stop(): void {
    this.stopped = true;
    this.cancelWake?.();
    this.pump();
  }

  private evaluate(sampled: boolean): Verdict {
    if (this.stopped) return { kind: 'stopped' };
    const now = this.now();
    if (this.breaker?.state === 'open') return { kind: 'defer', untilMs: this.breaker.probeAt, cause: 'breaker-open' };
    if (this.awaitingFleetUntil > now) return { kind: 'wait', retryAt: this.awaitingFleetUntil };
    if (this.pausedUntil > now) {
      if (this.pausedUntil - now > this.options.pauseHoldMs) return { kind: 'defer', untilMs: this.pausedUntil, cause: 'rate-limited' };
      return { kind: 'wait', retryAt: this.pausedUntil };
    }
    if (this.running >= (this.limit?.current ?? this.maxInFlight)) return { kind: 'wait', retryAt: undefined };
    const paced = this.pace?.nextAt(now);
    if (paced !== undefined) return { kind: 'wait', retryAt: paced };
    const admission = this.breaker?.admit();
    // Half-open with its probes under way: the next call waits for their verdict.
    if (admission?.kind === 'wait') return { kind: 'wait', retryAt: undefined };
    if (admission?.kind === 'open') return { kind: 'defer', untilMs: admission.probeAt, cause: 'breaker-open' };
    this.running++;
    this.pace?.dispatched(now);
    return { kind: 'run', ticket: { startedAt: now, breaker: admission?.ticket, sampled } };
  }

  /** Admits waiters in arrival order for as long as the gate lets them through. */
  private pump(): void {
    while (this.waiters.length > 0) {
      const verdict = this.evaluate(this.waiters[0]!.sampled);
      if (verdict.kind === 'wait') {
        this.wakeAt(verdict.retryAt);
        return;
      }
      this.waiters.shift()!.resolve(verdict);
    }
  }

  private wakeAt(at: number | undefined): void {
    if (at === undefined || this.stopped) return;
    this.cancelWake?.();
    // Cancelling a timer that already fired does nothing: no need to forget it here.
    this.cancelWake = this.timers.after(Math.max(0, at - this.now()), () => this.pump(), true);
  }
}
