import { deadLetterSummary, queueDepth, releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry } from '@requeue/sqs/dead-letters';

export type DeadLetterRow = ReturnType<typeof deadLetterRow>;

/** What the page shows of a dead letter: its summary, the body cut to 200 characters. */
export function deadLetterRow(entry: DlqEntry) {
  const summary = deadLetterSummary(entry);
  return { ...summary, body: summary.body.slice(0, 200) };
}

/** A scan no older than this is shown again while the DLQ's depth is unchanged. */
const RESCAN_AFTER_MS = 60_000;

/**
 * The DLQ as the page lists it. Reading a message means receiving it, which raises its
 * receive count and hides it for the scan: the page asks every two seconds, so the DLQ is
 * scanned again only when its depth changed (read from its attributes, which touches no
 * message), after a replay or discard, or once a minute.
 */
export class DeadLetterView {
  private rows: DeadLetterRow[] | undefined;
  private scannedAt = 0;
  private depthAtScan = -1;

  constructor(
    private readonly dlq: DeadLetterQueue,
    private readonly now: () => number = Date.now,
  ) {}

  /** The DLQ changed under the page: the next read scans. */
  invalidate(): void {
    this.rows = undefined;
  }

  async read(): Promise<DeadLetterRow[]> {
    const depth = await queueDepth(this.dlq.sqs, this.dlq.dlqUrl);
    const count = depth.visible + depth.inFlight + depth.delayed;
    if (this.rows && count === this.depthAtScan && this.now() - this.scannedAt < RESCAN_AFTER_MS) return this.rows;
    // Looked at, not taken: hidden for the few seconds of the scan, then released.
    const { matched, skipped } = await scanDlq(this.dlq, {}, { limit: 100, hideSeconds: 10 });
    await releaseDeadLetters(this.dlq, [...matched.map((entry) => entry.message), ...skipped]);
    this.rows = matched.map(deadLetterRow);
    this.depthAtScan = count;
    this.scannedAt = this.now();
    return this.rows;
  }
}
