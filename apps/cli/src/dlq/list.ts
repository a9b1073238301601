import { behindNote, entryJson, entryTable } from './format.js';
import { releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqFilter } from '@requeue/sqs/dead-letters';

/** Shows DLQ messages without consuming them: they are released as soon as they are read. */
export async function listDeadLetters(target: DeadLetterQueue, filter: DlqFilter, options: { limit?: number; json: boolean }, out: (text: string) => void) {
  const { matched, skipped, behind } = await scanDlq(target, filter, { limit: options.limit, hideSeconds: 30 });
  await releaseDeadLetters(target, [...matched.map((e) => e.message), ...skipped]);
  if (options.json) out(JSON.stringify(matched.map(entryJson), null, 2));
  else out(`${matched.length === 0 ? 'no matching messages in the DLQ' : `${entryTable(matched)}\n${matched.length} message(s)`}${behindNote(behind)}`);
  return matched;
}
