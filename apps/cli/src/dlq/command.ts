import { parseCommandArgs, parseDuration, parsePositiveInteger, parseRate } from '../args.js';
import { CliError, CliUsageError } from '../errors.js';
import { DEAD_LETTER_REASONS, NO_ROOM_FOR_REASON, REDRIVE_BACKSTOP, RetryStateSigner } from '@requeue/retry/engine';
import { DeadLetterOperationError, discardDeadLetters, replayDeadLetters, triageDeadLetters, type DlqEntry, type DlqFilter } from '@requeue/sqs/dead-letters';
import { entryJson, entryTable, triageJson, triageTable } from './format.js';
import { listDeadLetters } from './list.js';
import { redriveCommand, redriveOptions } from './redrive.js';
import type { CliIo } from '../io.js';
import { explainAwsError, resolveDlq } from './target.js';

export const DLQ_USAGE = `usage: requeue dlq <command> [options]

commands:
  list      show DLQ messages without consuming them
  triage    group the DLQ by cause (reason, error type, error fingerprint, dependency, consumer), without consuming it
  replay    send matching messages back to their source queue (or --to), then delete them from the DLQ
  discard   delete matching messages for good (asks first, or --yes)
  redrive   send one cause back, a canary slice first, and halt while it still fails (--move-task: SQS's whole-queue StartMessageMoveTask, real AWS)

the DLQ:  --dlq <url>, else WORKER_DLQ_URL, else the DLQ of a local requeue stack on ${'127.0.0.1:4566'}
          AWS through the standard credential chain; any emulator through AWS_ENDPOINT_URL_SQS or AWS_ENDPOINT_URL
filters:  --reason <reason>  --error-type <type>  --older-than <90s|15m|2h|7d>  --group <id from triage>
list:     --limit N  --json
triage:   --json
replay:   --to <queue-url>  --reset-attempts  --rate N/s  --max N  --dry-run  --json
discard:  --yes  --max N  --json
redrive:  a filter or --all  --canary <5%|50>  --rate N/s (50/s)  --halt-when-failing <10%>  --watch <60s>
          --to <queue-url>  --reset-attempts  --dry-run  --json
          --move-task [--to <queue-arn>] [--rate N/s]`;

const filterOptions = {
  dlq: { type: 'string' },
  reason: { type: 'string' },
  'error-type': { type: 'string' },
  'older-than': { type: 'string' },
  group: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

const REASONS = [...DEAD_LETTER_REASONS, NO_ROOM_FOR_REASON, REDRIVE_BACKSTOP];

function filterFrom(values: { reason?: string; 'error-type'?: string; 'older-than'?: string; group?: string }): DlqFilter {
  if (values.reason !== undefined && !REASONS.includes(values.reason))
    throw new CliUsageError(`--reason must be one of ${REASONS.join(', ')}, got ${JSON.stringify(values.reason)}`);
  if (values.group !== undefined && !/^[0-9a-f]{8}$/.test(values.group))
    throw new CliUsageError(`--group takes a group id as \`requeue dlq triage\` prints it (8 hex characters), got ${JSON.stringify(values.group)}`);
  return {
    group: values.group,
    reason: values.reason,
    errorType: values['error-type'],
    olderThanMs: values['older-than'] === undefined ? undefined : parseDuration('--older-than', values['older-than']),
  };
}

export async function runDlqCommand(argv: string[], io: CliIo): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.out(DLQ_USAGE);
    return;
  }
  switch (command) {
    case 'list': {
      const { values } = parseCommandArgs('list', rest, { ...filterOptions, limit: { type: 'string' } });
      const filter = filterFrom(values);
      const limit = values.limit === undefined ? undefined : parsePositiveInteger('--limit', values.limit);
      await withDlq(values.dlq, io, (target) => listDeadLetters(target, filter, { limit, json: values.json }, io.out));
      return;
    }
    case 'triage': {
      const { values } = parseCommandArgs('triage', rest, { dlq: { type: 'string' }, json: { type: 'boolean', default: false } });
      const result = await withDlq(values.dlq, io, (target) => triageDeadLetters(target));
      io.out(values.json ? JSON.stringify(triageJson(result), null, 2) : triageTable(result));
      return;
    }
    case 'replay':
      return replayCommand(rest, io);
    case 'discard': {
      const { values } = parseCommandArgs('discard', rest, { ...filterOptions, yes: { type: 'boolean', default: false }, max: { type: 'string' } });
      const filter = filterFrom(values);
      const max = values.max === undefined ? undefined : parsePositiveInteger('--max', values.max);
      const confirm = async (entries: readonly DlqEntry[]) => {
        if (values.yes) return true;
        if (!io.ask) throw new CliError(`discard deletes ${entries.length} message(s) for good: rerun with --yes (no terminal to ask on)`);
        io.err(entryTable(entries));
        const answer = await io.ask(`Delete these ${entries.length} message(s) from the DLQ for good? [y/N] `);
        return /^y(es)?$/i.test(answer.trim());
      };
      const { deleted, cancelled, matched } = await withDlq(values.dlq, io, (target) => discardDeadLetters(target, filter, { max }, confirm));
      if (cancelled) throw new CliError(`discard cancelled: ${matched} message(s) left in the DLQ`);
      if (values.json) io.out(JSON.stringify({ deleted: deleted.map(entryJson) }, null, 2));
      else io.out(deleted.length === 0 ? 'no matching messages: nothing deleted' : `${entryTable(deleted)}\ndeleted ${deleted.length} message(s)`);
      return;
    }
    case 'redrive': {
      const { values } = parseCommandArgs('redrive', rest, { ...filterOptions, ...redriveOptions });
      const filter = filterFrom(values);
      return redriveCommand(values, filter, io, (run) => withDlq(values.dlq, io, run), retryStateSigner(io.env));
    }
    default:
      throw new CliUsageError(`unknown dlq command ${JSON.stringify(command)}\n${DLQ_USAGE}`);
  }
}

async function withDlq<T>(dlqFlag: string | undefined, io: CliIo, run: (target: Awaited<ReturnType<typeof resolveDlq>>) => Promise<T>): Promise<T> {
  const target = await resolveDlq(dlqFlag, io.env);
  try {
    return await run(target);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof DeadLetterOperationError) throw new CliError(error.message, 1, { cause: error });
    throw explainAwsError(error, { dlqUrl: target.dlqUrl, endpoint: target.endpoint });
  } finally {
    target.sqs.destroy();
  }
}

/**
 * The workers' x-retry keys (WORKER_RETRY_STATE_KEYS), when the operator has them: a
 * replay signed with them keeps each message's identity, not only its attempts.
 */
function retryStateSigner(env: Readonly<Record<string, string | undefined>>): RetryStateSigner | undefined {
  const raw = env.WORKER_RETRY_STATE_KEYS?.trim();
  if (!raw) return undefined;
  try {
    return new RetryStateSigner(raw.split(',').map((key) => key.trim()));
  } catch (cause) {
    throw new CliUsageError(`WORKER_RETRY_STATE_KEYS: ${(cause as { problem: string }).problem}`, { cause });
  }
}

/** `requeue dlq replay`: back to each message's source queue (or `--to`), deleted from the DLQ only once sent. */
async function replayCommand(rest: string[], io: CliIo): Promise<void> {
  const { values } = parseCommandArgs('replay', rest, {
    ...filterOptions,
    to: { type: 'string' },
    'reset-attempts': { type: 'boolean', default: false },
    rate: { type: 'string' },
    max: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
  });
  const filter = filterFrom(values);
  const options = {
    to: values.to,
    resetAttempts: values['reset-attempts'],
    ratePerSecond: values.rate === undefined ? undefined : parseRate('--rate', values.rate),
    max: values.max === undefined ? undefined : parsePositiveInteger('--max', values.max),
    dryRun: values['dry-run'],
    signer: retryStateSigner(io.env),
  };
  const result = await withDlq(values.dlq, io, (target) => replayDeadLetters(target, filter, options));
  if (values.json) io.out(JSON.stringify(result, null, 2));
  else {
    for (const { messageId, to, ownIdentity } of result.replayed) {
      io.out(`${result.dryRun ? 'would replay' : 'replayed'} ${messageId} -> ${to}${ownIdentity ? ` as a new identity: ${ownIdentity}` : ''}`);
    }
    for (const { messageId, why } of result.skipped) io.err(`skipped ${messageId}: ${why}`);
    io.out(
      `${result.replayed.length} message(s) ${result.dryRun ? 'would be replayed (dry run: nothing changed)' : 'replayed'}` +
        (result.skipped.length ? `, ${result.skipped.length} skipped` : ''),
    );
  }
}
