import { queueDepth } from '../sqs-io/queue-depth.js';
import { causeId } from './cause.js';
import { causeOfEntry, releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry } from './scan.js';

/** Dead letters of one cause: the same reason, error type, error fingerprint, dependency and consumer. */
export interface DeadLetterGroup {
  /** Stable across runs (a hash of what the group shares): what `--group` takes. */
  id: string;
  /** Dead letters in the group. */
  count: number;
  /** `x-dead-letter.reason`, or `redrive-backstop` for a message SQS's redrive moved. */
  reason: string;
  /** The last failure's error type, or `UNKNOWN`. */
  errorType: string;
  /** The error with ids, numbers and URLs masked. */
  fingerprint: string;
  /** The host of the first URL in the error, or null. */
  dependency: string | null;
  /** The queue the worker consumed it from (`x-dead-letter.sourceQueue`), or null for a message SQS's redrive moved. */
  consumer: string | null;
  /** Epoch ms of the earliest dead-lettering in the group, when known. */
  firstSeen: number | null;
  /** Epoch ms of the latest dead-lettering in the group, when known. */
  lastSeen: number | null;
  /** One of its messages, as an example. */
  example: { messageId: string; error: string | null; body: string };
}

/** What `triageDeadLetters` read, and what reading it cost. */
export interface TriageResult {
  /** Largest first. */
  groups: DeadLetterGroup[];
  /** Dead letters read (each once). */
  total: number;
  /**
   * What SQS counted visible before the read: a read that stopped short of it (SQS's short
   * polls can come back empty while messages remain) shows here.
   */
  visibleBefore: number;
  /**
   * Hidden when the read began, so not read nor counted: letters an interrupted run hid
   * (they show again within 120 s) or another reader holds.
   */
  hiddenBefore: number;
  /** FIFO: letters behind the first letters of their groups, which SQS shows only once those are gone (0 on a standard DLQ). */
  behindInGroups: number;
  /** SQS calls made: receives to read (each hides what it returns), and batches to release it at once. */
  calls: { receives: number; releases: number };
}

/** The group id a dead letter falls in: what `--group` compares. */
export function deadLetterGroupId(entry: DlqEntry): string {
  return causeId(causeOfEntry(entry));
}

/** Groups read dead letters by cause, largest group first (then the most recent). */
export function groupDeadLetters(entries: readonly DlqEntry[]): DeadLetterGroup[] {
  const groups = new Map<string, DeadLetterGroup>();
  for (const entry of entries) {
    const id = deadLetterGroupId(entry);
    const at = entry.deadLetteredAt ?? null;
    const group = groups.get(id);
    if (group) {
      group.count++;
      if (at !== null && (group.firstSeen === null || at < group.firstSeen)) group.firstSeen = at;
      if (at !== null && (group.lastSeen === null || at > group.lastSeen)) group.lastSeen = at;
      continue;
    }
    const example = { messageId: entry.message.MessageId ?? '', error: entry.record?.error ?? null, body: entry.message.Body ?? '' };
    groups.set(id, { id, count: 1, ...causeOfEntry(entry), firstSeen: at, lastSeen: at, example });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || (b.lastSeen ?? 0) - (a.lastSeen ?? 0));
}

/**
 * Reads the whole DLQ without consuming it and groups what is there by cause. Each
 * receive hides its messages for `hideSeconds` (so one read sees each message once), and
 * everything read is made visible again in batches of ten as soon as the read ends: about
 * N/10 receives and N/10 release calls for N dead letters.
 */
export async function triageDeadLetters(target: DeadLetterQueue, options: { hideSeconds?: number } = {}): Promise<TriageResult> {
  const { visible, inFlight } = await queueDepth(target.sqs, target.dlqUrl);
  const { matched, skipped, receives, behind } = await scanDlq(target, {}, { hideSeconds: options.hideSeconds ?? 120 });
  const read = [...matched.map((entry) => entry.message), ...skipped];
  await releaseDeadLetters(target, read);
  // A read longer than the hiding sees its first messages again: each counts once.
  const once = [...new Map(matched.map((entry) => [entry.message.MessageId, entry])).values()];
  return {
    groups: groupDeadLetters(once),
    total: once.length,
    visibleBefore: visible,
    hiddenBefore: inFlight,
    behindInGroups: behind,
    calls: { receives, releases: Math.ceil(read.length / 10) },
  };
}
