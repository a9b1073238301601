/**
 * Operations on a dead-letter queue, for operators and their tools: list what is there
 * and why, group it by cause (triage), replay, redrive, discard. Each leaves what it did
 * not act on in the DLQ, visible again. The worker itself needs none of this.
 *
 * @example
 * ```ts
 * import { replayDeadLetters } from '@requeue/sqs/dead-letters';
 *
 * const result = await replayDeadLetters({ sqs, dlqUrl }, { errorType: 'HTTP_5XX' }, { resetAttempts: true, dryRun: false });
 * console.log(`${result.replayed.length} replayed, ${result.skipped.length} left in the DLQ`);
 * ```
 *
 * @packageDocumentation
 */
export {
  DEAD_LETTER_ATTRIBUTE,
  DEAD_LETTER_REASONS,
  NO_ROOM_FOR_REASON,
  parseDeadLetterRecord,
  REDRIVE_BACKSTOP,
  type DeadLetterRecord,
} from '@requeue/retry/engine';
export { discardDeadLetters } from './discard.js';
export { DeadLetterOperationError } from './errors.js';
export { redriveDeadLetters } from './redrive.js';
export { canaryRedrive, type CanaryRedriveOptions, type CanaryRedriveResult, type RedriveProgress } from './canary-redrive.js';
export type { CanarySize } from './canary-plan.js';
export { TOOL_HIDE_SECONDS, type HiddenLetters } from './hidden-letters.js';
export type { RedriveFailure } from './return-watch.js';
export { errorFingerprint } from './fingerprint.js';
export { deadLetterGroupId, groupDeadLetters, triageDeadLetters, type DeadLetterGroup, type TriageResult } from './triage.js';
export { replayDeadLetters, type ReplayOptions, type ReplayResult } from './replay.js';
export type { SendBackOptions } from './send-back.js';
export { messageDigest } from '../message/message-digest.js';
export { deadLetterSummary, toEntry as readDeadLetter, releaseDeadLetters, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';
export { queueDepth, type QueueDepth } from '../sqs-io/queue-depth.js';
