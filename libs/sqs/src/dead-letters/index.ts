export { discardDeadLetters } from './discard.js';
export { DeadLetterOperationError } from './errors.js';
export { redriveDeadLetters } from './redrive.js';
export { replayAttributes, replayDeadLetters, type ReplayOptions, type ReplayResult } from './replay.js';
export { deadLetterSummary, matches, release, scanDlq, type DeadLetterQueue, type DlqEntry, type DlqFilter } from './scan.js';
