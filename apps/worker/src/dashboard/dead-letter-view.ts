import {
  deadLetterSummary,
  groupDeadLetters,
  queueDepth,
  releaseDeadLetters,
  scanDlq,
  type DeadLetterGroup,
  type DeadLetterQueue,
  type DlqEntry,
} from '@requeue/sqs/dead-letters';

export type DeadLetterRow = ReturnType<typeof deadLetterRow>;

/** What the page shows of a dead letter: its summary, the body cut to 200 characters. */
export function deadLetterRow(entry: DlqEntry) {
  const summary = deadLetterSummary(entry);
  return { ...summary, body: summary.body.slice(0, 200) };
}

/** A scan no older than this is shown again while the DLQ's depth is unchanged. */
const RESCAN_AFTER_MS = 60_000;
/** The page lists this many dead letters... */
const LISTED = 100;
/** ...and groups this many by cause: a local DLQ is small, and a scan costs a receive per ten. */
const GROUPED = 1_000;

/** The DLQ's dead letters by cause, as `requeue dlq triage` groups them, from the first `GROUPED` read. */
export interface GroupsView {
  groups: Array<Omit<DeadLetterGroup, 'example'> & { example: { messageId: string; error: string | null } }>;
  /** Dead letters the groups were made from. */
  read: number;
  /** What the DLQ held when it was read. */
  depth: number;
}

/**
 * The DLQ as the page lists it. Reading a message means receiving it, which raises its
 * receive count and hides it for the scan: the page asks every two seconds, so the DLQ is
 * scanned again only when its depth changed (read from its attributes, which touches no
 * message), after a replay or discard, or once a minute.
 */
export class DeadLetterView {
  private rows: DeadLetterRow[] | undefined;
  private grouped: GroupsView | undefined;
  private scanning: Promise<void> | undefined;
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

  /** The first `LISTED` dead letters, for the table with replay and discard. */
  async read(): Promise<DeadLetterRow[]> {
    await this.scanWhenChanged();
    return this.rows!;
  }

  /** The DLQ by cause, for the groups table. */
  async groups(): Promise<GroupsView> {
    await this.scanWhenChanged();
    return this.grouped!;
  }

  /** One scan at a time: a second would find the first one's messages hidden. */
  private scanWhenChanged(): Promise<void> {
    this.scanning ??= this.rescanIfChanged().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  private async rescanIfChanged(): Promise<void> {
    const depth = await queueDepth(this.dlq.sqs, this.dlq.dlqUrl);
    const count = depth.visible + depth.inFlight + depth.delayed;
    if (this.rows && count === this.depthAtScan && this.now() - this.scannedAt < RESCAN_AFTER_MS) return;
    // Looked at, not taken: hidden for the few seconds of the scan, then released.
    const { matched, skipped } = await scanDlq(this.dlq, {}, { limit: GROUPED, hideSeconds: 30 });
    await releaseDeadLetters(this.dlq, [...matched.map((entry) => entry.message), ...skipped]);
    this.rows = matched.slice(0, LISTED).map(deadLetterRow);
    const groups = groupDeadLetters(matched).map(({ example, ...group }) => ({ ...group, example: { messageId: example.messageId, error: example.error } }));
    this.grouped = { groups, read: matched.length, depth: count };
    // A scan that saw fewer than the DLQ holds ran while something else (a replay, the
    // CLI) held messages hidden: it is not kept, so the next read scans again.
    this.depthAtScan = matched.length + skipped.length < Math.min(count, GROUPED) ? -1 : count;
    this.scannedAt = this.now();
  }
}
