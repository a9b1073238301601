import {
  canaryRedrive,
  redriveDeadLetters,
  TOOL_HIDE_SECONDS,
  type CanaryRedriveResult,
  type CanarySize,
  type DlqFilter,
  type RedriveProgress,
} from '@requeue/sqs/dead-letters';
import { parseDuration, parseRate } from '../args.js';
import { CliError, CliUsageError } from '../errors.js';
import type { RetryStateSigner } from '@requeue/retry/engine';
import type { CliIo } from '../io.js';
import { hiddenNote } from './format.js';
import type { DlqTarget } from './target.js';

/** `--canary`: `5%` of what matched, or `50` messages. */
export function parseCanary(value: string): CanarySize {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (percent && Number(percent[1]) > 0 && Number(percent[1]) <= 100) return { percent: Number(percent[1]) };
  if (/^\d+$/.test(value.trim()) && Number(value) > 0) return { count: Number(value) };
  throw new CliUsageError(`--canary takes a share of the matched dead letters such as 5%, or a number of messages such as 50, got ${JSON.stringify(value)}`);
}

/** `--halt-when-failing`: a share such as `20%`. */
export function parseShare(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share > 0 && share <= 1)) throw new CliUsageError(`${flag} takes a share above 0% and at most 100% such as 20%, got ${JSON.stringify(value)}`);
  return share;
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** What a canary redrive did, for a terminal: its verdict, then each message that came back. */
export function redriveReport(result: CanaryRedriveResult): string {
  const threshold = result.haltWhenFailing;
  const lines = result.failures.map((f) =>
    `came back ${f.messageId} (sent as ${f.redrivenAs}, back as ${f.returnedAs}): ${f.reason} ${f.errorType} ${f.error ?? ''}`.trim(),
  );
  const rate = result.rate.achieved === null ? '' : ` at ${result.rate.achieved.toFixed(1)}/s (set ${result.rate.set}/s)`;
  const share = `${result.failed} of ${result.sent} came back (${pct(result.failureShare)})`;
  if (result.outcome === 'dry-run') {
    lines.push(
      `dry run: ${result.matched} dead letter(s) match; the canary would be ${result.canary}, ` +
        `then the rest at ${result.rate.set}/s while under ${pct(threshold)} come back; nothing changed`,
    );
  } else if (result.outcome === 'halted') {
    lines.push(
      `halted: ${share}${rate}, at or above ${pct(threshold)}; ${result.untouched} left in the DLQ untouched. Fix the cause, then run the same command again`,
    );
  } else {
    lines.push(`completed: ${result.sent} sent${rate}; ${share}; canary ${result.canary}`);
  }
  if (result.skipped.length > 0) lines.push(`${result.skipped.length} skipped (left in the DLQ): ${result.skipped[0]!.why}`);
  if (result.hidden.stillHidden > 0) lines.push(hiddenNote(result.hidden.stillHidden));
  else if (result.hidden.atStart > 0) lines.push(`${result.hidden.atStart} dead letter(s) hidden by an earlier run showed again, and were read`);
  for (const { messageId, why } of result.ownIdentity) lines.push(`new identity ${messageId}: ${why}`);
  return lines.join('\n');
}

export const redriveOptions = {
  all: { type: 'boolean', default: false },
  canary: { type: 'string' },
  rate: { type: 'string' },
  'halt-when-failing': { type: 'string' },
  watch: { type: 'string' },
  to: { type: 'string' },
  'reset-attempts': { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  'move-task': { type: 'boolean', default: false },
} as const;

interface RedriveFlags {
  all: boolean;
  canary?: string;
  rate?: string;
  'halt-when-failing'?: string;
  watch?: string;
  to?: string;
  'reset-attempts': boolean;
  'dry-run': boolean;
  'move-task': boolean;
  json: boolean;
}

type WithDlq = <T>(run: (target: DlqTarget) => Promise<T>) => Promise<T>;

/**
 * `requeue dlq redrive`: one cause (a filter, or `--all`) back with a canary first; or,
 * with `--move-task`, SQS's own whole-queue StartMessageMoveTask.
 */
export async function redriveCommand(
  values: RedriveFlags,
  filter: DlqFilter,
  io: CliIo,
  withDlq: WithDlq,
  signer: RetryStateSigner | undefined,
): Promise<void> {
  if (values['move-task']) {
    const maxPerSecond = values.rate === undefined ? undefined : Math.floor(parseRate('--rate', values.rate));
    const handle = await withDlq((target) => redriveDeadLetters(target, { toArn: values.to, maxPerSecond }));
    io.out(`redrive started: task ${handle}`);
    return;
  }
  const filtered = Object.values(filter).some((value) => value !== undefined);
  if (!filtered && !values.all)
    throw new CliUsageError(
      'redrive takes the cause to send back: --group <id from triage>, --reason or --error-type; ' +
        "or --all for every dead letter (--move-task for SQS's own whole-queue move)",
    );
  const haltWhenFailing = values['halt-when-failing'] === undefined ? undefined : parseShare('--halt-when-failing', values['halt-when-failing']);
  const options = {
    to: values.to,
    canary: values.canary === undefined ? undefined : parseCanary(values.canary),
    ratePerSecond: values.rate === undefined ? undefined : parseRate('--rate', values.rate),
    haltWhenFailing,
    watchMs: values.watch === undefined ? undefined : parseDuration('--watch', values.watch),
    resetAttempts: values['reset-attempts'],
    dryRun: values['dry-run'],
    signer,
    onProgress: ({ phase, sent, failed, hidden }: RedriveProgress) =>
      io.err(
        phase === 'waiting-for-hidden'
          ? `waiting up to ${TOOL_HIDE_SECONDS + 5} s for ${hidden} dead letter(s) hidden by an earlier run to show again`
          : `${phase}: ${sent} sent, ${failed} came back`,
      ),
  };
  const result = await withDlq((target) => canaryRedrive(target, filter, options));
  io.out(values.json ? JSON.stringify(result, null, 2) : redriveReport(result));
  if (result.outcome === 'halted') throw new CliError(`redrive halted: ${result.failed} of ${result.sent} came back; ${result.untouched} left in the DLQ`);
}
