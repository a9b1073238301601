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
  const header = ['id', 'first delivery id', ...(withSns ? ['sns id'] : []), 'reason', 'errorType', 'attempts', 'first received', 'dead-lettered', 'error', 'body'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
