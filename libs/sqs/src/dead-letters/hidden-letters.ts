import { queueDepth } from '../sqs-io/queue-depth.js';
import type { DeadLetterQueue } from './scan.js';

/**
 * How long requeue's DLQ commands hide what they read, at a time: the letters of one that
 * was interrupted (Ctrl-C, a killed shell) show again within this.
 */
export const TOOL_HIDE_SECONDS = 120;

/** Dead letters hidden by someone else when a command began: an interrupted run, or another reader. */
export interface HiddenLetters {
  /** Hidden when the command began. */
  atStart: number;
  /** Of those, still hidden when it stopped waiting for them (0 when it did not wait). */
  stillHidden: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits up to `waitMs` for the DLQ's hidden letters to show again, so that a rerun after an
 * interrupted run takes in what that run had hidden rather than finding nothing. `onWait`
 * hears the count once, when there is something to wait for.
 */
export async function awaitHiddenLetters(target: DeadLetterQueue, waitMs: number, onWait?: (hidden: number) => void, pollMs = 1_000): Promise<HiddenLetters> {
  const atStart = (await queueDepth(target.sqs, target.dlqUrl)).inFlight;
  if (atStart === 0 || waitMs === 0) return { atStart, stillHidden: waitMs === 0 ? atStart : 0 };
  onWait?.(atStart);
  const until = Date.now() + waitMs;
  let hidden = atStart;
  while (hidden > 0 && Date.now() < until) {
    await sleep(Math.min(pollMs, Math.max(0, until - Date.now())));
    hidden = (await queueDepth(target.sqs, target.dlqUrl)).inFlight;
  }
  return { atStart, stillHidden: hidden };
}
