import { seededRandom, type Random } from '@requeue/retry/engine';

/** What the handler does on one attempt of a message; `down`: the dependency's outage answered 503, whatever the script. */
export type AttemptOutcome = 'ok' | 'retryable' | 'permanent' | 'hangs' | 'rate-limited' | 'down';

export interface ScriptedMessage {
  /** The message's own id, in its body: the same across retry copies and duplicates. */
  id: string;
  /** Its FIFO group, on a FIFO queue. */
  group: string | undefined;
  /**
   * The outcome of its n-th run is `outcomes[n - 1]`, the last one repeating. By run, not
   * attempt: a 429 defers the message without using an attempt, so the next run must differ.
   */
  outcomes: AttemptOutcome[];
}

/** The chance of each SQS fault on any one call (or, for duplicates, on any one received message). */
export interface FaultRates {
  /** The call fails before taking effect: throttled, or a 5xx. */
  refused: number;
  /** The call takes effect, and its answer is lost: the caller sees an error. */
  answerLost: number;
  /** A received message is received again while the first delivery runs. */
  duplicate: number;
  /** A batch call that acts on some entries and answers the others failed (SQS's `Failed` list). */
  partial: number;
}

export interface Scenario {
  seed: number;
  fifo: boolean;
  maxAttempts: number;
  maxInFlight: number;
  handlerTimeoutMs: number;
  messages: ScriptedMessage[];
  faults: FaultRates;
  /**
   * A stretch of virtual time when the dependency answers every call 503 (`down`) or 429
   * with `Retry-After` (`rate-limited`): runs in it do not advance a message's script.
   */
  outage: { fromMs: number; toMs: number; answer: 'down' | 'rate-limited' } | undefined;
  /** Effects once, on an in-memory store whose calls may fail or hang; undefined: off. */
  idempotency: { fail: number; hang: number } | undefined;
  /** The first worker process dies at `atMs` (mid-step, its memory lost) and a new one starts `restartAfterMs` later. */
  crash?: { atMs: number; restartAfterMs: number } | undefined;
  /** Worker processes on the queue at once, each with `maxInFlight` handlers. */
  workers: number;
  /** How long each handler run waits on the dependency before it answers (0: at once); past `handlerTimeoutMs` it times out. */
  latencyMs: number;
  /** The queue's visibility timeout: shorter than a slow run, only the heartbeat keeps the message from a second delivery. */
  visibilityTimeoutSeconds: number;
  /**
   * On a standard queue, the worker's tenants (read from the `tenant` attribute, each
   * capped at half of `maxInFlight`): `quiet` messages are a quiet tenant's, published
   * amid the other tenant's burst (`quietIndexes`).
   */
  tenants: { quiet: number } | undefined;
}

/**
 * A slow dependency in 30% of the scenarios: each run takes up to the handler timeout, under
 * a visibility timeout of 1-5 s. (Slower than the timeout, with lost answers, messages
 * multiply: docs/design/2026-11-29-simulation-fleet.md.)
 */
function slownessOf(random: Random, handlerTimeoutMs: number): Pick<Scenario, 'latencyMs' | 'visibilityTimeoutSeconds'> {
  if (random() >= 0.3) return { latencyMs: 0, visibilityTimeoutSeconds: 30 };
  return { latencyMs: Math.floor(random() * handlerTimeoutMs), visibilityTimeoutSeconds: 1 + Math.floor(random() * 5) };
}

function pick<T>(random: Random, choices: readonly T[]): T {
  return choices[Math.floor(random() * choices.length)]!;
}

/** Mostly successes after a few failures, some that never succeed, some that hang past the timeout. */
function outcomesOf(random: Random): AttemptOutcome[] {
  const failures = Math.floor(random() * 4);
  const failing: AttemptOutcome[] = Array.from({ length: failures }, () => pick(random, ['retryable', 'retryable', 'rate-limited', 'hangs'] as const));
  const last = pick(random, ['ok', 'ok', 'ok', 'ok', 'permanent', 'retryable'] as const);
  return [...failing, last];
}

/** In a third of the scenarios, the dependency is down, or rate-limits every call, for 5 s to 10 minutes within the first 5 minutes. */
function outageOf(random: Random): Scenario['outage'] {
  if (random() >= 1 / 3) return undefined;
  const fromMs = Math.floor(random() * 300_000);
  const toMs = fromMs + 5_000 + Math.floor(random() * 595_000);
  return { fromMs, toMs, answer: random() < 0.5 ? 'down' : 'rate-limited' };
}

/**
 * The scenario a seed stands for: the same seed gives the same scenario, and the same run.
 * With faults on, the worker process is killed mid-step in 30% of them (and another
 * started); `withFaults: false` keeps the scenario and turns every SQS fault and crash off.
 */
export function scenarioOf(seed: number, { withFaults = true } = {}): Scenario {
  const random = seededRandom(seed);
  const fifo = random() < 0.3;
  const groups = 1 + Math.floor(random() * 4);
  const count = 5 + Math.floor(random() * 26);
  const faulty = random() < 0.7 && withFaults;
  const rate = (max: number) => (faulty ? random() * max : 0);
  const scenario: Omit<Scenario, 'workers' | 'latencyMs' | 'visibilityTimeoutSeconds' | 'tenants'> = {
    seed,
    fifo,
    maxAttempts: 2 + Math.floor(random() * 5),
    maxInFlight: 1 + Math.floor(random() * 10),
    handlerTimeoutMs: 1000 * (1 + Math.floor(random() * 10)),
    messages: Array.from({ length: count }, (_, i) => ({
      id: `msg-${i}`,
      group: fifo ? `group-${Math.floor(random() * groups)}` : undefined,
      outcomes: outcomesOf(random),
    })),
    faults: { refused: rate(0.15), answerLost: rate(0.1), duplicate: fifo ? 0 : rate(0.1), partial: rate(0.1) },
    outage: outageOf(random),
    idempotency: random() < 0.4 ? { fail: rate(0.05), hang: rate(0.05) } : undefined,
    crash: withFaults && random() < 0.3 ? { atMs: 1 + Math.floor(random() * 180_000), restartAfterMs: 1000 + Math.floor(random() * 29_000) } : undefined,
  };
  // From a stream of their own: each seed's messages, faults and crash stay what they were,
  // and the fleet, the dependency and the tenants stay the same with faults off.
  const fleet = seededRandom(seed ^ 0x5f3759df);
  const slowness = slownessOf(fleet, scenario.handlerTimeoutMs);
  const workers = 1 + Math.floor(fleet() * 3);
  const tenants = !fifo && fleet() < 0.3 ? { quiet: 1 + Math.floor(fleet() * 2) } : undefined;
  // A defect this simulation found is open (docs/design/2026-11-29-simulation-fleet.md):
  // a process counts the receives another handed back unrun (under SQS faults, and the
  // give-backs of tenants over their share) as attempts. Until it is fixed, the seeds run
  // several processes only without faults or tenants; test/sim/open/ holds a scenario that
  // reproduces it.
  const calm = !faulty && !scenario.crash && tenants === undefined;
  return {
    ...scenario,
    workers: fifo || slowness.latencyMs > 0 || !calm ? 1 : workers,
    latencyMs: slowness.latencyMs,
    visibilityTimeoutSeconds: slowness.visibilityTimeoutSeconds,
    tenants,
  };
}
