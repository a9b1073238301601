import { NO_ROOM_FOR_REASON } from '@requeue/retry/engine';
import { deadLetterSummary, TOOL_HIDE_SECONDS, type DlqEntry, type TriageResult } from '@requeue/sqs/dead-letters';

const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z'));
const clip = (text: string, width: number) => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

/** The JSON shape of `list --json` (docs/contracts.md §5): one object per message, its whole body, times in ISO 8601. */
export function entryJson(entry: DlqEntry) {
  const { firstReceivedAt, deadLetteredAt, ...summary } = deadLetterSummary(entry);
  return { ...summary, firstReceivedAt: iso(firstReceivedAt ?? undefined), deadLetteredAt: iso(deadLetteredAt ?? undefined) };
}

/**
 * A fixed-width table for a terminal. Beside the dead letter's own id: its first
 * delivery's, as the worker logged it, and SNS's, as its publisher got it, when any has one.
 */
export function entryTable(entries: readonly DlqEntry[]): string {
  const summaries = entries.map(deadLetterSummary);
  const withSns = summaries.some((summary) => summary.snsMessageId !== null);
  const rows = summaries.map((summary, i) => [
    summary.messageId || '-',
    summary.originalMessageId ?? '-',
    ...(withSns ? [summary.snsMessageId ?? '-'] : []),
    summary.reason,
    summary.errorType,
    String(summary.attempts),
    iso(summary.firstReceivedAt ?? undefined),
    iso(summary.deadLetteredAt ?? undefined),
    clip(summary.error ?? '', 40),
    clip(entries[i]!.message.Body ?? '', 40),
  ]);
  const header = [
    'id',
    'first delivery id',
    ...(withSns ? ['sns id'] : []),
    'reason',
    'errorType',
    'attempts',
    'first received',
    'dead-lettered',
    'error',
    'body',
  ];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * What a read of a FIFO DLQ could not reach: SQS shows a group's later messages only once
 * the ones before them are gone, so they are counted, not shown.
 */
export function behindNote(behind: number): string {
  if (behind === 0) return '';
  return (
    `\n${behind} more dead letter(s) wait behind the first letters of their FIFO groups: ` +
    'SQS shows them once those are replayed or discarded (replay takes a group in its order)'
  );
}

/** The JSON shape of `triage --json` (docs/contracts.md §5): the groups, largest first, times in ISO 8601. */
export function triageJson(result: TriageResult) {
  return {
    total: result.total,
    visibleBefore: result.visibleBefore,
    behindInGroups: result.behindInGroups,
    calls: result.calls,
    groups: result.groups.map(({ firstSeen, lastSeen, ...group }) => ({
      ...group,
      firstSeen: iso(firstSeen ?? undefined),
      lastSeen: iso(lastSeen ?? undefined),
    })),
  };
}

/** One line per cause, largest first, and what the read cost. */
export function triageTable(result: TriageResult): string {
  if (result.total === 0) return 'the DLQ is empty';
  const header = ['group', 'count', 'reason', 'errorType', 'dependency', 'consumer', 'first seen', 'last seen', 'error'];
  const rows = result.groups.map((group) => [
    group.id,
    String(group.count),
    group.reason,
    group.errorType,
    group.dependency ?? '-',
    group.consumer?.split('/').pop() ?? '-',
    iso(group.firstSeen ?? undefined),
    iso(group.lastSeen ?? undefined),
    clip(group.fingerprint, 60),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const short =
    result.behindInGroups > 0
      ? behindNote(result.behindInGroups)
      : result.visibleBefore > result.total
        ? `\nSQS counted ${result.visibleBefore} visible before the read: run triage again to read the rest`
        : '';
  const cost = `read with ${result.calls.receives} receives and ${result.calls.releases} release calls; every message it read is visible again`;
  const hidden = result.hiddenBefore > 0 ? `\n${hiddenNote(result.hiddenBefore)}` : '';
  const noRoom = result.groups.find((group) => group.reason === NO_ROOM_FOR_REASON);
  const noRoomNote = noRoom
    ? `\n${NO_ROOM_FOR_REASON}: the worker sent these without x-dead-letter (10 attributes, or at the size limit); ` +
      `its log's dead-lettered line with deadLetterMessageId ${noRoom.example.messageId} has the reason`
    : '';
  const summary = `${result.total} dead letter(s) in ${result.groups.length} group(s); ${cost}${short}${hidden}${noRoomNote}`;
  return [line(header), ...rows.map(line), summary].join('\n');
}

/** Letters hidden before a command read the DLQ: not read, and why they may be hidden. */
export function hiddenNote(count: number): string {
  return (
    `${count} more dead letter(s) were hidden when the read began, so not read: an interrupted triage or redrive hides what it read ` +
    `for up to ${TOOL_HIDE_SECONDS} s, another reader as long as it holds them. Run the command again once they show`
  );
}
