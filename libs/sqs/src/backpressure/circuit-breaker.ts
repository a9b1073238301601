import { cappedExponentialMs, type Random } from '@requeue/retry/engine';

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * The per-dependency circuit breaker: it opens on a high failure rate, so messages wait in the
 * queue, unrun and their attempts unused, instead of hammering a dependency that is down.
 */
export interface CircuitBreakerOptions {
  /** Opens when failures / calls in the window reach this share (0–1]. */
  failureRate: number;
  /** ...and the window holds at least this many calls, so a few failures never open it. */
  minimumRequests: number;
  /** The sliding window, in milliseconds. */
  windowMs: number;
  /** The first cool-down; each reopening without a success in between doubles it. */
  cooldownMs: number;
  /** The longest cool-down the doubling reaches. */
  maxCooldownMs: number;
  /** Calls let through at once while half-open. */
  probes: number;
}

/** What a call learnt about the dependency. `neutral`: it answered, but says nothing about its health either way. */
export type CallResult = 'success' | 'failure' | 'neutral';

/** Handed out with each admitted call; a probe's result decides the half-open state. */
export interface BreakerTicket {
  probe: boolean;
  /** The breaker's generation when the call started: results from an older one are stale. */
  generation: number;
}

export type BreakerAdmission = { kind: 'run'; ticket: BreakerTicket } | { kind: 'wait' } | { kind: 'open'; probeAt: number };

const BUCKETS = 10;

interface Bucket {
  start: number;
  calls: number;
  failures: number;
}

/**
 * Closed -> open when the failure share of a sliding window (bucketed, so memory stays
 * flat) crosses the threshold with enough volume. Open -> half-open after a cool-down
 * that grows exponentially and is jittered, so several workers do not probe in step.
 * Half-open lets `probes` calls through: a success closes it, a failure reopens it.
 */
export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private buckets: Bucket[] = [];
  private openings = 0;
  private probesInFlight = 0;
  private generation = 0;
  /** When an open breaker lets its first probe through. */
  probeAt = 0;
  /** When it last opened, and when it last closed after being open; 0 before either. */
  openedAt = 0;
  recoveredAt = 0;

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly now: () => number,
    private readonly random: Random,
    private readonly onTransition: (state: BreakerState) => void = () => undefined,
  ) {}

  /** The state as callers see it: an open breaker whose cool-down is over reports half-open. */
  get state(): BreakerState {
    return this.current === 'open' && this.now() >= this.probeAt ? 'half-open' : this.current;
  }

  /** Call before each call to the dependency. */
  admit(): BreakerAdmission {
    if (this.current === 'open') {
      if (this.now() < this.probeAt) return { kind: 'open', probeAt: this.probeAt };
      this.current = 'half-open';
      this.probesInFlight = 0;
      this.onTransition('half-open');
    }
    if (this.current === 'half-open') {
      if (this.probesInFlight >= this.options.probes) return { kind: 'wait' };
      this.probesInFlight++;
      return { kind: 'run', ticket: { probe: true, generation: this.generation } };
    }
    return { kind: 'run', ticket: { probe: false, generation: this.generation } };
  }

  /** Another worker saw the dependency recover: an open breaker probes now instead of at the end of its cool-down. */
  probeNow(): void {
    if (this.current === 'open') this.probeAt = Math.min(this.probeAt, this.now());
  }

  record(ticket: BreakerTicket, result: CallResult): void {
    // A call that started before the last transition says nothing about the state now.
    if (ticket.generation !== this.generation) return;
    if (ticket.probe) {
      this.probesInFlight = Math.max(0, this.probesInFlight - 1);
      if (result === 'failure') this.open();
      else this.close();
      return;
    }
    if (this.current !== 'closed' || result === 'neutral') return;
    const bucket = this.bucketNow();
    bucket.calls++;
    if (result === 'failure') {
      bucket.failures++;
      if (this.tripped()) this.open();
    }
  }

  private tripped(): boolean {
    const since = this.now() - this.options.windowMs;
    let calls = 0;
    let failures = 0;
    for (const bucket of this.buckets) {
      if (bucket.start <= since) continue;
      calls += bucket.calls;
      failures += bucket.failures;
    }
    return calls >= this.options.minimumRequests && failures / calls >= this.options.failureRate;
  }

  private bucketNow(): Bucket {
    const width = this.options.windowMs / BUCKETS;
    const start = Math.floor(this.now() / width) * width;
    const last = this.buckets.at(-1);
    if (last?.start === start) return last;
    const bucket = { start, calls: 0, failures: 0 };
    this.buckets.push(bucket);
    if (this.buckets.length > BUCKETS + 1) this.buckets.shift();
    return bucket;
  }

  private open(): void {
    this.openings++;
    const ceiling = cappedExponentialMs(this.options.cooldownMs, 2, this.openings - 1, this.options.maxCooldownMs);
    // Equal jitter: at least half the cool-down, so the dependency always gets a rest.
    this.openedAt = this.now();
    this.probeAt = this.openedAt + ceiling / 2 + (this.random() * ceiling) / 2;
    this.transition('open');
  }

  private close(): void {
    this.openings = 0;
    this.recoveredAt = this.now();
    this.transition('closed');
  }

  private transition(state: BreakerState): void {
    this.current = state;
    this.generation++;
    this.probesInFlight = 0;
    this.buckets = [];
    this.onTransition(state);
  }
}
