import { DeleteMessageBatchCommand } from '@aws-sdk/client-sqs';
import { CliError } from '../errors.js';
import { release, scanDlq, type DlqEntry, type DlqFilter } from './scan.js';
import type { DlqTarget } from './target.js';

/**
 * Deletes matching DLQ messages for good, after `confirm` agrees (the caller asks, or
 * `--yes` answered already). Returns what was deleted.
 */
export async function discardDeadLetters(
  target: DlqTarget,
  filter: DlqFilter,
  options: { max?: number },
  confirm: (entries: readonly DlqEntry[]) => Promise<boolean>,
): Promise<DlqEntry[]> {
  const { matched, skipped } = await scanDlq(target, filter, { limit: options.max, hideSeconds: 120 });
  await release(target, skipped);
  if (matched.length === 0) return [];
  let confirmed = false;
  try {
    confirmed = await confirm(matched);
  } finally {
    // Refused, or no way to ask: everything goes back untouched.
    if (!confirmed) await release(target, matched.map((e) => e.message));
  }
  if (!confirmed) throw new CliError(`discard cancelled: ${matched.length} message(s) left in the DLQ`);
  const deleted: DlqEntry[] = [];
  for (let start = 0; start < matched.length; start += 10) {
    const batch = matched.slice(start, start + 10);
    const out = await target.sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl: target.dlqUrl, Entries: batch.map((entry, i) => ({ Id: String(i), ReceiptHandle: entry.message.ReceiptHandle! })) }),
    );
    for (const success of out.Successful ?? []) deleted.push(batch[Number(success.Id)]!);
  }
  return deleted;
}
