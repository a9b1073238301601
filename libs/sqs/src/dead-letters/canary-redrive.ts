import { queueDepth } from '../sqs-io/queue-depth.js';
import {
  canaryCount,
  checkRedriveSettings,
  REDRIVE_DEFAULTS,
  shouldHalt,
  type CanaryRedriveOptions,
  type CanaryRedriveResult,
  type CanarySize,
  type RedriveProgress,
} from './canary-plan.js';
export type { CanaryRedriveOptions, CanaryRedriveResult, RedriveProgress } from './canary-plan.js';
import { HeldLetters } from './held-letters.js';
import { awaitHiddenLetters, TOOL_HIDE_SECONDS, type HiddenLetters } from './hidden-letters.js';
import { ReturnWatch } from './return-watch.js';
import { matches, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';
import { DeadLetterOperationError } from './errors.js';
import { RedrivePace } from './redrive-pace.js';
import { destinationOf, sendBackBatch } from './send-back.js';
import { SendWindow } from './send-window.js';
import { sourceQueuePolicy, type SourceQueuePolicy } from './source-queues.js';

/** Hidden that long at a time while the redrive works; renewed every half of it. */
const HIDE_SECONDS = TOOL_HIDE_SECONDS;
const POLL_EVERY_MS = 250;
/** Batches under way at once to a standard queue (`SendWindow`): 40 messages, at 200 a second 200 ms of round trips. */
const BATCHES_IN_FLIGHT = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Planned {
  entry: DlqEntry;
  to: string;
}

/**
 * Sends one cause's dead letters back, a canary slice first. Every message the DLQ holds
 * stays hidden meanwhile, so what it shows is a redriven message coming back (see
 * `ReturnWatch`). The canary is watched until each message came back or the watch ends;
 * the rest follows at the set rate while the share that came back stays under the
 * threshold, and stays in the DLQ, untouched, once it does not. On a FIFO DLQ, a group's
 * later dead letters show only once the earlier ones are gone: they are picked up as
 * they show, in group order.
 */
export async function canaryRedrive(target: DeadLetterQueue, filter: DlqFilter, options: CanaryRedriveOptions): Promise<CanaryRedriveResult> {
  const settings: Settings = { ...REDRIVE_DEFAULTS, ...definedOnly(options), dryRun: options.dryRun, resetAttempts: options.resetAttempts };
  checkRedriveSettings(settings);
  const sources = settings.to === undefined ? await sourceQueuePolicy(target) : undefined;
  const progress = (phase: RedriveProgress['phase']) => (count: number) => settings.onProgress?.({ phase, sent: 0, failed: 0, hidden: count });
  const hidden = await awaitHiddenLetters(target, settings.dryRun ? 0 : settings.waitForHiddenMs, progress('waiting-for-hidden'));
  const held = new HeldLetters(target, HIDE_SECONDS);
  try {
    const run = new RedriveRun(target, held, settings, filter, sources, hidden);
    return await run.execute();
  } finally {
    await held.release();
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

type Settings = CanaryRedriveOptions & {
  canary: CanarySize;
  ratePerSecond: number;
  haltWhenFailing: number;
  watchMs: number;
  quietMs: number;
  waitForHiddenMs: number;
};

class RedriveRun {
  private readonly started = Date.now();
  private readonly watch: ReturnWatch;
  private readonly queue: Planned[] = [];
  private readonly skipped: CanaryRedriveResult['skipped'] = [];
  private readonly ownIdentity: CanaryRedriveResult['ownIdentity'] = [];
  private readonly destinations = new Set<string>();
  private sent = 0;
  private readonly pace: RedrivePace;
  private readonly planned = new Set<string>();
  private readonly window = new SendWindow();
  /** Taken from the plan to be sent: `sent` and those under way. */
  private dispatched = 0;
  private matched = 0;

  constructor(
    private readonly target: DeadLetterQueue,
    private readonly held: HeldLetters,
    private readonly settings: Settings,
    private readonly filter: DlqFilter,
    private readonly sources: SourceQueuePolicy | undefined,
    private readonly hidden: HiddenLetters,
  ) {
    this.watch = new ReturnWatch(target, held, HIDE_SECONDS, (entry) => this.takeLate(entry));
    this.pace = new RedrivePace(settings.ratePerSecond);
  }

  async execute(): Promise<CanaryRedriveResult> {
    const { matched, skipped } = await scanDlq(this.target, this.filter, { hideSeconds: HIDE_SECONDS });
    this.held.add([...matched.map((entry) => entry.message), ...skipped]);
    for (const entry of matched) this.plan(entry);
    const canary = canaryCount(this.settings.canary, await this.estimateMatched(matched.length, skipped.length));
    if (this.settings.dryRun) return this.result('dry-run', canary);
    await this.sendWhile(canary, false);
    this.progress('canary');
    await this.settle();
    if (this.halts()) return this.result('halted', canary);
    this.progress('continuing');
    const halted = await this.sendWhile(Number.POSITIVE_INFINITY, true);
    this.progress('settling');
    await this.settle();
    return this.result(halted ? 'halted' : 'completed', canary);
  }

  private plan(entry: DlqEntry): void {
    // A letter shown again (its hiding lapsed) is planned once.
    if (this.planned.has(entry.message.MessageId ?? '')) return;
    this.planned.add(entry.message.MessageId ?? '');
    const destination = destinationOf(entry, this.settings.to, this.sources);
    if ('why' in destination) {
      this.skipped.push({ messageId: entry.message.MessageId ?? '?', why: destination.why });
      return;
    }
    this.matched++;
    this.queue.push({ entry, to: destination.to });
  }

  /**
   * A dead letter that showed while the redrive ran: one of the cause's, dead-lettered
   * before the redrive began, that the first read could not see (a FIFO group's later
   * letters, or what a short receive missed). New dead letters are left as they are.
   */
  private takeLate(entry: DlqEntry): void {
    const inDlqSince = Number(entry.message.Attributes?.SentTimestamp);
    if (inDlqSince < this.started && matches(entry, this.filter, this.started)) this.plan(entry);
  }

  /** A FIFO DLQ shows only its groups' first letters: the share that matched, scaled to all it holds. */
  private async estimateMatched(matched: number, others: number): Promise<number> {
    if (!this.target.dlqUrl.endsWith('.fifo') || matched + others === 0) return matched;
    // Everything read is held (in flight); the rest waits behind it, visible.
    const { visible, inFlight } = await queueDepth(this.target.sqs, this.target.dlqUrl);
    return Math.max(matched, Math.round(((visible + inFlight) * matched) / (matched + others)));
  }

  /**
   * Sends from the queue at the set rate, watching the DLQ as it goes, until `limit` are
   * sent, nothing is left, or (`haltable`) the share that came back reaches the threshold;
   * true when it halted.
   */
  private async sendWhile(limit: number, haltable: boolean): Promise<boolean> {
    this.pace.startPhase();
    let lastPoll = Date.now();
    while (this.dispatched < limit) {
      if (this.queue.length === 0) {
        // What is under way may still bring late letters to plan (a FIFO group's next).
        await this.window.drain();
        await this.watch.poll();
        lastPoll = Date.now();
        if (this.queue.length === 0) return false;
      }
      const before = this.sent;
      await this.sendNext(limit);
      if (Date.now() - lastPoll >= POLL_EVERY_MS) {
        await this.watch.poll();
        lastPoll = Date.now();
      }
      if (Math.floor(this.sent / 100) > Math.floor(before / 100)) this.progress(haltable ? 'continuing' : 'canary');
      if (haltable && this.halts()) {
        await this.window.drain();
        return true;
      }
    }
    await this.window.drain();
    return false;
  }

  private halts(): boolean {
    return shouldHalt(this.watch.failures.length, this.sent, this.settings.haltWhenFailing);
  }

  /**
   * Starts the next batch when it is due: up to ten (a tenth of the rate, so batches go out
   * at least ten times a second) for one queue, never past `limit`. Resolves once the
   * window has room for another.
   */
  private async sendNext(limit: number): Promise<void> {
    const { ratePerSecond } = this.settings;
    const size = Math.min(limit - this.dispatched, Math.max(1, Math.min(10, Math.floor(ratePerSecond / 10))));
    const to = this.queue[0]!.to;
    let count = 0;
    while (count < size && this.queue[count]?.to === to) count++;
    const batch = this.queue.splice(0, count).map((planned) => planned.entry);
    const due = this.pace.dueFor(batch.length);
    this.dispatched += batch.length;
    if (due > Date.now()) await sleep(due - Date.now());
    await this.window.add(this.sendBatch(to, batch), to.endsWith('.fifo') ? 1 : BATCHES_IN_FLIGHT);
  }

  private async sendBatch(to: string, batch: DlqEntry[]): Promise<void> {
    // When it went out: the rate is the pace of the sends, not of their answers.
    const at = Date.now();
    const { sent, problems } = await sendBackBatch(this.target, to, batch, this.settings);
    for (const { entry, redrivenAs, deleted, ownIdentity } of sent) {
      if (deleted) this.held.forget(entry.message);
      if (ownIdentity) this.ownIdentity.push({ messageId: entry.message.MessageId ?? '?', why: ownIdentity });
      this.sent++;
      this.watch.watch(entry, redrivenAs);
    }
    this.pace.wentOut(at, sent.length);
    this.destinations.add(to);
    if (problems.length > 0) throw new DeadLetterOperationError(`redrive stopped after ${this.sent} sent: ${problems.join('; ')}`);
  }

  /**
   * Waits for what was sent to show its outcome: until every message sent came back, or
   * every queue sent to has been empty for `quietMs` (each was handled, and a failure is
   * dead-lettered before its original is deleted), or `watchMs` passed since the last send.
   */
  private async settle(): Promise<void> {
    const until = (this.pace.lastSentAt ?? Date.now()) + this.settings.watchMs;
    let quietSince: number | undefined;
    while (this.watch.failures.length < this.sent) {
      await this.watch.poll();
      const now = Date.now();
      if (now >= until) return;
      quietSince = (await this.destinationsEmpty()) ? (quietSince ?? now) : undefined;
      if (quietSince !== undefined && now - quietSince >= this.settings.quietMs) return;
      await sleep(POLL_EVERY_MS);
    }
  }

  private async destinationsEmpty(): Promise<boolean> {
    for (const queueUrl of this.destinations) {
      const depth = await queueDepth(this.target.sqs, queueUrl);
      if (depth.visible + depth.inFlight + depth.delayed > 0) return false;
    }
    return true;
  }

  private progress(phase: RedriveProgress['phase']): void {
    this.settings.onProgress?.({ phase, sent: this.sent, failed: this.watch.failures.length });
  }

  private result(outcome: CanaryRedriveResult['outcome'], canary: number): CanaryRedriveResult {
    const failed = this.watch.failures.length;
    return {
      outcome,
      matched: this.matched,
      canary,
      sent: this.sent,
      failed,
      failureShare: this.sent === 0 ? 0 : failed / this.sent,
      haltWhenFailing: this.settings.haltWhenFailing,
      untouched: this.matched - this.sent,
      failures: this.watch.failures,
      skipped: this.skipped,
      hidden: this.hidden,
      ownIdentity: this.ownIdentity,
      rate: { set: this.settings.ratePerSecond, achieved: this.pace.achieved(this.sent) },
      elapsedMs: Date.now() - this.started,
    };
  }
}
