import { deadLetterSummary, type DlqEntry } from '@requeue/sqs/dead-letters';

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

/** A fixed-width table for a terminal. */
export function entryTable(entries: readonly DlqEntry[]): string {
  const rows = entries.map((entry) => [
    entry.message.MessageId ?? '-',
    entry.reason,
    entry.errorType,
    String(entry.attempts),
    iso(entry.firstReceivedAt),
    iso(entry.deadLetteredAt),
    clip(entry.record?.error ?? '', 40),
    clip(entry.message.Body ?? '', 40),
  ]);
  const header = ['id', 'reason', 'errorType', 'attempts', 'first received', 'dead-lettered', 'error', 'body'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
