import { DeadLetterOperationError } from './errors.js';
import type { HiddenLetters } from './hidden-letters.js';
import type { RedriveFailure } from './return-watch.js';
import type { SendBackOptions } from './send-back.js';

/** How much of a redrive goes first, alone: a share of what matched, or a number of messages. */
export type CanarySize = { percent: number } | { count: number };

/** What `canaryRedrive` does unless told otherwise. */
export const REDRIVE_DEFAULTS = {
  canary: { percent: 5 } as CanarySize,
  ratePerSecond: 50,
  haltWhenFailing: 0.1,
  watchMs: 60_000,
  quietMs: 3_000,
  waitForHiddenMs: 125_000,
} as const;

/** The canary's size for `matched` dead letters: at least one, at most all of them. */
export function canaryCount(size: CanarySize, matched: number): number {
  if (matched === 0) return 0;
  const wanted = 'count' in size ? size.count : Math.ceil((matched * size.percent) / 100);
  return Math.min(matched, Math.max(1, wanted));
}

/** Whether a redrive stops: the share of what it sent that came back has reached the threshold. */
export function shouldHalt(failed: number, sent: number, haltWhenFailing: number): boolean {
  return sent > 0 && failed / sent >= haltWhenFailing;
}

/** Checks a redrive's settings, naming the one that is wrong and what it takes. */
export function checkRedriveSettings(settings: { canary: CanarySize; ratePerSecond: number; haltWhenFailing: number; watchMs: number }): void {
  const problem = (text: string) => new DeadLetterOperationError(`canary redrive: ${text}`);
  const { canary } = settings;
  if ('count' in canary && !(Number.isInteger(canary.count) && canary.count > 0))
    throw problem(`canary count must be a whole number above 0, got ${canary.count}`);
  if ('percent' in canary && !(canary.percent > 0 && canary.percent <= 100))
    throw problem(`canary percent must be above 0 and at most 100, got ${canary.percent}`);
  if (!(settings.ratePerSecond > 0 && Number.isFinite(settings.ratePerSecond)))
    throw problem(`rate must be above 0 messages a second, got ${settings.ratePerSecond}`);
  if (!(settings.haltWhenFailing > 0 && settings.haltWhenFailing <= 1))
    throw problem(`the failure share to halt at must be above 0 and at most 1 (100%), got ${settings.haltWhenFailing}`);
  if (!(settings.watchMs > 0 && Number.isFinite(settings.watchMs))) throw problem(`the watch must last above 0 ms, got ${settings.watchMs}`);
}

/** How `canaryRedrive` sends a cause's dead letters back. */
export interface CanaryRedriveOptions extends SendBackOptions {
  /** Where to send; by default each message's source queue from `x-dead-letter`. */
  to?: string;
  /** What goes first, alone, to be watched. @default 5% of what matched (at least one message) */
  canary?: CanarySize;
  /** At most this many messages a second, the canary included. @default 50 */
  ratePerSecond?: number;
  /** Halt once this share (0 to 1) of what was sent has come back to the DLQ. @default 0.1 */
  haltWhenFailing?: number;
  /**
   * How long after its send a message may still come back to count as failed. Watching ends
   * sooner once every queue sent to has been empty for 3 s (nothing waiting, in flight or
   * delayed). @default 60000
   */
  watchMs?: number;
  /**
   * How long to wait, before reading, for dead letters hidden when the redrive begins (by an
   * interrupted run, which hid them for 120 s, or another reader) to show again. @default 125000
   */
  waitForHiddenMs?: number;
  /** Report what would be sent, and the canary's size; send and delete nothing. */
  dryRun: boolean;
  /** Called as the redrive moves on: after the canary, after its verdict, every 100 messages, and at the end. */
  onProgress?: (progress: RedriveProgress) => void;
}

/** Where a redrive is. */
export interface RedriveProgress {
  /** Waiting for letters hidden by an earlier run; sending or watching the canary; sending the rest; watching the last messages sent. */
  phase: 'waiting-for-hidden' | 'canary' | 'continuing' | 'settling';
  /** Sent back so far. */
  sent: number;
  /** Of those, come back to the DLQ so far. */
  failed: number;
  /** While `waiting-for-hidden`: how many letters it waits for. */
  hidden?: number;
}

/** What a canary redrive did. */
export interface CanaryRedriveResult {
  /** `completed`: everything matched was sent; `halted`: the failure share reached the threshold, and the rest stayed in the DLQ. */
  outcome: 'completed' | 'halted' | 'dry-run';
  /** Dead letters that matched the filter and could be sent. */
  matched: number;
  /** The canary's size. */
  canary: number;
  /** Sent back, and deleted from the DLQ. */
  sent: number;
  /** Sent back, and came back to the DLQ within the watch. */
  failed: number;
  /** `failed / sent`. */
  failureShare: number;
  /** The share it halts at. */
  haltWhenFailing: number;
  /** Matched, never sent: still in the DLQ, as they were. */
  untouched: number;
  /** The redriven messages that came back, and why. */
  failures: RedriveFailure[];
  /** Left in the DLQ, and why (no source queue, or one the DLQ's policy does not allow). */
  skipped: Array<{ messageId: string; why: string }>;
  /** Dead letters hidden by an interrupted run or another reader when the redrive began, and how many it could not wait for. */
  hidden: HiddenLetters;
  /** Sent back as their own messages (a new idempotency key), and why: their `x-retry` did not verify. */
  ownIdentity: Array<{ messageId: string; why: string }>;
  /** The rate asked for, and the rate the sends kept (null under two sends). */
  rate: { set: number; achieved: number | null };
  /** From the start of the read to the end of the watch. */
  elapsedMs: number;
}
