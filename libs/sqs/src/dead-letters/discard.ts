import { DeleteMessageBatchCommand } from '@aws-sdk/client-sqs';
import { releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';

/**
 * Deletes matching DLQ messages for good, after `confirm` agrees (the caller asks, or
 * `--yes` answered already). Returns what was deleted; a refusal releases everything.
 */
export async function discardDeadLetters(
  target: DeadLetterQueue,
  filter: DlqFilter,
  options: { max?: number },
  confirm: (entries: readonly DlqEntry[]) => Promise<boolean>,
): Promise<{ deleted: DlqEntry[]; cancelled: boolean; matched: number }> {
  const { matched, skipped } = await scanDlq(target, filter, { limit: options.max, hideSeconds: 120 });
  await releaseDeadLetters(target, skipped);
  if (matched.length === 0) return { deleted: [], cancelled: false, matched: 0 };
  let confirmed = false;
  try {
    confirmed = await confirm(matched);
  } finally {
    // Refused, or no way to ask: everything goes back untouched.
    if (!confirmed)
      await releaseDeadLetters(
        target,
        matched.map((e) => e.message),
      );
  }
  if (!confirmed) return { deleted: [], cancelled: true, matched: matched.length };
  const deleted: DlqEntry[] = [];
  for (let start = 0; start < matched.length; start += 10) {
    const batch = matched.slice(start, start + 10);
    const out = await target.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: target.dlqUrl,
        Entries: batch.map((entry, i) => ({ Id: String(i), ReceiptHandle: entry.message.ReceiptHandle! })),
      }),
    );
    for (const success of out.Successful ?? []) deleted.push(batch[Number(success.Id)]!);
  }
  return { deleted, cancelled: false, matched: matched.length };
}
