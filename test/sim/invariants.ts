import { DEAD_LETTER_REASONS } from '@requeue/retry/engine';
import { MAX_RECEIVE_COUNT, QUIET_TENANT, quietIndexes, RUNAWAY_SENDS_PER_MESSAGE, type RunRecord } from './run-scenario.js';

/** A broken invariant: which, of which message, in a line. */
export interface Violation {
  invariant: string;
  detail: string;
}

type Check = (record: RunRecord) => Violation[];

/** Every message ends, within the horizon, as a success or a dead letter (the worker's, or SQS's redrive). */
const nothingLost: Check = ({ scenario, runs, deadLetters, redriven, settled }) => {
  const ended = new Set([...deadLetters.map((letter) => letter.id), ...redriven]);
  for (const run of runs) if (run.outcome === 'ok') ended.add(run.id);
  const lost = scenario.messages.filter((message) => !ended.has(message.id)).map((message) => message.id);
  const violations = lost.map((id) => ({ invariant: 'nothing-lost', detail: `${id} neither succeeded nor was dead-lettered within the horizon` }));
  if (settled || lost.length > 0) return violations;
  return [{ invariant: 'nothing-lost', detail: 'every message ended, but the queue still held messages at the horizon' }];
};

/**
 * The worker's own reason for an early `max-attempts` (docs/contracts.md): the message was
 * at the queue's receive limit, where one more receive would be SQS's redrive, unrun and
 * without a reason. FIFO give-backs behind a group's head raise the count with no attempt.
 */
function atReceiveLimit(error: string | undefined): boolean {
  const received = /\(received (\d+) times, the queue's maxReceiveCount/.exec(error ?? '');
  return received !== null && Number(received[1]) >= MAX_RECEIVE_COUNT;
}

/**
 * A dead letter names one of the documented reasons, and the reason is what the handler's
 * runs show. A `max-attempts` letter counts the policy's attempts (fewer only at the
 * queue's receive limit), plus the receives SQS
 * lost (it counted them); a message SQS made two of shares one receive count between its
 * twins, so its count is not held to the policy's.
 */
const deadLetterReasons: Check = ({ scenario, runs, deadLetters, forked, lostReceives }) =>
  deadLetters.flatMap(({ id, reason, attempts, error }) => {
    const own = runs.filter((run) => run.id === id);
    if (reason === undefined || !(DEAD_LETTER_REASONS as readonly string[]).includes(reason)) {
      return [{ invariant: 'dead-letter-reason', detail: `${id} dead-lettered with reason ${String(reason)}` }];
    }
    if (reason === 'non-retryable' && !own.some((run) => run.outcome === 'permanent')) {
      return [{ invariant: 'dead-letter-reason', detail: `${id} dead-lettered as non-retryable, but no run failed permanently` }];
    }
    const counted = attempts ?? 0;
    const allowed = scenario.maxAttempts + (lostReceives[id] ?? 0);
    const early = counted < scenario.maxAttempts && !atReceiveLimit(error);
    if (reason === 'max-attempts' && (early || counted > allowed) && !forked.includes(id)) {
      return [{ invariant: 'dead-letter-reason', detail: `${id} dead-lettered as max-attempts after ${attempts} of ${scenario.maxAttempts}` }];
    }
    return [];
  });

/**
 * No handler run has an attempt number past the policy's `maxAttempts`, counting the
 * receives SQS lost as the attempts SQS counted them as; a message SQS made two of is left
 * out (a twin delivered while the other runs counts the other's receive too).
 */
const attemptsWithinPolicy: Check = ({ scenario, runs, forked, lostReceives }) =>
  runs
    .filter((run) => run.attempt < 1 || (run.attempt > scenario.maxAttempts + (lostReceives[run.id] ?? 0) && !forked.includes(run.id)))
    .map((run) => ({ invariant: 'attempts-within-policy', detail: `${run.id} ran as attempt ${run.attempt} of ${scenario.maxAttempts}` }));

/**
 * A message does not both succeed and get dead-lettered by the worker: its copies never
 * fork into two endings. A message SQS itself made two of (delivered twice at once, or a
 * send whose answer was lost) may, as at-least-once allows without idempotency: those are
 * left out, and every fork the engine makes on its own is still caught.
 */
const oneEnding: Check = ({ runs, deadLetters, forked }) => {
  const succeeded = new Set(runs.filter((run) => run.outcome === 'ok').map((run) => run.id));
  const twice = new Set(forked);
  return deadLetters
    .filter((letter) => succeeded.has(letter.id) && !twice.has(letter.id))
    .map((letter) => ({ invariant: 'one-ending', detail: `${letter.id} succeeded and was dead-lettered (${String(letter.reason)})` }));
};

/**
 * Each message's attempts are counted one by one: the attempt numbers its runs saw are
 * 1, 2, 3 ... with none skipped, but for receives whose answer SQS lost (attempts SQS
 * counted that no handler saw). A message SQS made two of runs two lines of attempts: left out.
 */
const attemptsCountedOnce: Check = ({ runs, forked, lostReceives }) => {
  const twice = new Set(forked);
  const seen = new Map<string, Set<number>>();
  for (const run of runs) if (!twice.has(run.id)) seen.set(run.id, (seen.get(run.id) ?? new Set()).add(run.attempt));
  return [...seen].flatMap(([id, attempts]) => {
    const skipped = Math.max(...attempts) - attempts.size;
    if (skipped <= (lostReceives[id] ?? 0)) return [];
    return [{ invariant: 'attempts-counted-once', detail: `${id} ran as attempts ${[...attempts].sort((a, b) => a - b).join(', ')}` }];
  });
};

/**
 * On a FIFO queue, a message of a group succeeds only after every message published ahead
 * of it in the group has run for the last time (succeeded, or failed its way to the DLQ).
 */
const fifoOrder: Check = ({ scenario, runs }) => {
  if (!scenario.fifo) return [];
  const lastRun = new Map<string, number>();
  const firstSuccess = new Map<string, number>();
  runs.forEach((run, index) => {
    lastRun.set(run.id, index);
    if (run.outcome === 'ok' && !firstSuccess.has(run.id)) firstSuccess.set(run.id, index);
  });
  const violations: Violation[] = [];
  const ahead = new Map<string, string[]>();
  for (const { id, group } of scenario.messages) {
    if (group === undefined) continue;
    const success = firstSuccess.get(id);
    const before = ahead.get(group) ?? [];
    const overtaken = success === undefined ? undefined : before.find((earlier) => (lastRun.get(earlier) ?? -1) > success);
    if (overtaken)
      violations.push({ invariant: 'fifo-order', detail: `${id} succeeded while ${overtaken}, ahead of it in ${group}, had yet to run its last time` });
    ahead.set(group, [...before, id]);
  }
  return violations;
};

/**
 * With idempotency on, a message's handler succeeds at most once, even when SQS delivered
 * it twice or a copy went out twice; but for a message whose completion the store did not
 * take (it failed or hung), whose in-progress record then lapses and lets a duplicate run:
 * the documented limit (docs/worker.md).
 */
const effectOnce: Check = ({ scenario, runs, completionsLost }) => {
  if (!scenario.idempotency) return [];
  const lost = new Set(completionsLost);
  const successes = new Map<string, number>();
  for (const run of runs) if (run.outcome === 'ok') successes.set(run.id, (successes.get(run.id) ?? 0) + 1);
  return [...successes]
    .filter(([id, count]) => count > 1 && !lost.has(id))
    .map(([id, count]) => ({ invariant: 'effect-once', detail: `${id} succeeded ${count} times with idempotency on` }));
};

/**
 * A message never runs twice at once: the heartbeat keeps a message hidden while its handler
 * runs, however slow the dependency and however short the visibility timeout, so no other
 * worker receives it meanwhile. A message SQS itself made two of is left out (a heartbeat
 * call that failed every try, a duplicate delivery, a crash).
 */
const neverTwiceAtOnce: Check = ({ runs, forked }) => {
  const twice = new Set(forked);
  const open = new Map<string, number>();
  const violations: Violation[] = [];
  for (const run of [...runs].sort((a, b) => a.at - b.at)) {
    if (twice.has(run.id)) continue;
    const busyUntil = open.get(run.id) ?? -1;
    if (run.at < busyUntil)
      violations.push({ invariant: 'never-twice-at-once', detail: `${run.id} attempt ${run.attempt} started while another run of it was under way` });
    open.set(run.id, Math.max(busyUntil, run.endedAt ?? Number.POSITIVE_INFINITY));
  }
  return violations;
};

/** The dependency's peak load: never more runs at once than `maxInFlight` per process, and the fleet's sum across processes. */
const loadWithinBound: Check = ({ scenario, peakLoad }) => {
  const violations: Violation[] = [];
  if (peakLoad.perProcess > scenario.maxInFlight)
    violations.push({ invariant: 'peak-load', detail: `${peakLoad.perProcess} runs at once in one process, maxInFlight ${scenario.maxInFlight}` });
  if (peakLoad.fleet > scenario.maxInFlight * scenario.workers)
    violations.push({ invariant: 'peak-load', detail: `${peakLoad.fleet} runs at once across ${scenario.workers} processes of ${scenario.maxInFlight}` });
  return violations;
};

/** How long a quiet tenant's first message may wait for its turn beyond the runs ahead of it: receives in between. */
export const QUIET_TENANT_MARGIN_MS = 1_000;

/**
 * A quiet tenant published amid another's burst, in what the worker first receives, starts
 * its first message at once: the next free slot is its turn, whatever the burst's handlers take. With one
 * slot it waits for the run in it (the handler timeout ends any run). Checked where nothing
 * else delays it: no SQS fault, crash or outage.
 */
const quietTenantDwell: Check = ({ scenario, runs }) => {
  const { tenants, faults, crash, outage } = scenario;
  const calm = Object.values(faults).every((rate) => rate === 0) && !crash && !outage;
  if (!tenants || !calm) return [];
  const bound = (scenario.maxInFlight > 1 ? 0 : scenario.handlerTimeoutMs) + QUIET_TENANT_MARGIN_MS;
  const quiet = new Set([...quietIndexes(scenario)].map((index) => scenario.messages[index]!.id));
  const start = Math.min(...runs.map((run) => run.at));
  // Its first message: a second waits behind the first while the tenant is at its cap.
  const first = runs.find((run) => quiet.has(run.id));
  const dwell = first ? first.at - start : Number.POSITIVE_INFINITY;
  if (quiet.size === 0 || dwell <= bound) return [];
  return [{ invariant: 'quiet-tenant-dwell', detail: `the ${QUIET_TENANT} tenant's first message ran ${dwell} ms in, bound ${bound} ms` }];
};

/** Messages do not multiply: the worker's sends (copies, dead letters) stay within a bound per message that no policy reaches. */
const sendsBounded: Check = ({ scenario, sends }) =>
  sends > RUNAWAY_SENDS_PER_MESSAGE * scenario.messages.length
    ? [{ invariant: 'sends-bounded', detail: `${sends} copies and dead letters sent for ${scenario.messages.length} messages` }]
    : [];

export const INVARIANTS: readonly Check[] = [
  sendsBounded,
  nothingLost,
  deadLetterReasons,
  attemptsWithinPolicy,
  attemptsCountedOnce,
  oneEnding,
  fifoOrder,
  effectOnce,
  neverTwiceAtOnce,
  loadWithinBound,
  quietTenantDwell,
];

export function violationsOf(record: RunRecord): Violation[] {
  return INVARIANTS.flatMap((check) => check(record));
}
