import { DeadLetterOperationError } from './errors.js';

/** How much of a redrive goes first, alone: a share of what matched, or a number of messages. */
export type CanarySize = { percent: number } | { count: number };

/** What `canaryRedrive` does unless told otherwise. */
export const REDRIVE_DEFAULTS = {
  canary: { percent: 5 } as CanarySize,
  ratePerSecond: 50,
  haltWhenFailing: 0.1,
  watchMs: 60_000,
  quietMs: 3_000,
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
  if ('count' in canary && !(Number.isInteger(canary.count) && canary.count > 0)) throw problem(`canary count must be a whole number above 0, got ${canary.count}`);
  if ('percent' in canary && !(canary.percent > 0 && canary.percent <= 100)) throw problem(`canary percent must be above 0 and at most 100, got ${canary.percent}`);
  if (!(settings.ratePerSecond > 0 && Number.isFinite(settings.ratePerSecond))) throw problem(`rate must be above 0 messages a second, got ${settings.ratePerSecond}`);
  if (!(settings.haltWhenFailing > 0 && settings.haltWhenFailing <= 1)) throw problem(`the failure share to halt at must be above 0 and at most 1 (100%), got ${settings.haltWhenFailing}`);
  if (!(settings.watchMs > 0 && Number.isFinite(settings.watchMs))) throw problem(`the watch must last above 0 ms, got ${settings.watchMs}`);
}
