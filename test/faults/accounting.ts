import type { Message } from '@aws-sdk/client-sqs';
import { readDeadLetter } from '@requeue/sqs/dead-letters';
import { readSimulationLedger as readLedger } from '@requeue/local-aws/simulation-ledger';

/** Where a published message must end: the ledger, or the DLQ with this reason. */
export type ExpectedEnd = { kind: 'succeeded' } | { kind: 'dead-lettered'; reason: string };

export interface Accounting {
  published: number;
  succeeded: number;
  deadLettered: Record<string, number>;
  /** Ids found nowhere. Must be empty. */
  lost: string[];
  /** Ids that ended somewhere other than expected, or in two places. Must be empty. */
  misplaced: Array<{ id: string; expected: string; found: string }>;
  /** Extra ledger lines (successes beyond the first per id): at-least-once in action. */
  duplicates: number;
  /** Extra DLQ copies of the same id. */
  deadLetterDuplicates: number;
}

const describeEnd = (end: ExpectedEnd) => (end.kind === 'succeeded' ? 'succeeded' : `dead-lettered (${end.reason})`);

/** The id in a DLQ message's body: simulation bodies are JSON with an `id`. */
function idOf(message: Message): string | undefined {
  try {
    const id = (JSON.parse(message.Body ?? '') as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The ids that have ended: in the ledger, or among these dead letters. */
export function endedIds(ledgerPath: string, deadLetters: readonly Message[]): Set<string> {
  const ended = new Set(readLedger(ledgerPath).map((line) => line.id));
  for (const message of deadLetters) {
    const id = idOf(message);
    if (id !== undefined) ended.add(id);
  }
  return ended;
}

/** Its `x-dead-letter` reason, or what triage files it under without one (`no-room`, `redrive-backstop`). */
function reasonOf(message: Message): string {
  return readDeadLetter(message).reason;
}

/**
 * Jepsen-style accounting: every published id must end in exactly one named place, the
 * ledger or the DLQ with the expected reason. `idOfDeadLetter` reads ids from bodies that
 * are not simulation JSON.
 */
export function account(
  expected: ReadonlyMap<string, ExpectedEnd>,
  ledgerPath: string,
  deadLetters: Message[],
  idOfDeadLetter: (message: Message) => string | undefined = idOf,
): Accounting {
  const ledger = readLedger(ledgerPath);
  const successes = new Map<string, number>();
  for (const line of ledger) successes.set(line.id, (successes.get(line.id) ?? 0) + 1);
  const dead = new Map<string, string[]>();
  for (const message of deadLetters) {
    const id = idOfDeadLetter(message) ?? `<unreadable ${message.MessageId}>`;
    dead.set(id, [...(dead.get(id) ?? []), reasonOf(message)]);
  }

  const result: Accounting = { published: expected.size, succeeded: 0, deadLettered: {}, lost: [], misplaced: [], duplicates: 0, deadLetterDuplicates: 0 };
  for (const [id, end] of expected) {
    const succeeded = successes.has(id);
    const reasons = dead.get(id) ?? [];
    if (succeeded) result.duplicates += successes.get(id)! - 1;
    if (reasons.length > 1) result.deadLetterDuplicates += reasons.length - 1;
    if (!succeeded && reasons.length === 0) {
      result.lost.push(id);
      continue;
    }
    const found = succeeded && reasons.length > 0 ? `succeeded and dead-lettered (${reasons[0]})` : succeeded ? 'succeeded' : `dead-lettered (${reasons[0]})`;
    if (found !== describeEnd(end)) {
      result.misplaced.push({ id, expected: describeEnd(end), found });
      continue;
    }
    if (succeeded) result.succeeded++;
    else result.deadLettered[reasons[0]!] = (result.deadLettered[reasons[0]!] ?? 0) + 1;
  }
  for (const id of [...successes.keys(), ...dead.keys()]) {
    if (!expected.has(id)) result.misplaced.push({ id, expected: 'never published', found: successes.has(id) ? 'succeeded' : 'dead-lettered' });
  }
  return result;
}
