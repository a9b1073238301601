import type { SimulationLedgerLine } from '@requeue/local-aws/simulation-ledger';

/**
 * Where each published message stands, each counted once, so the four add up to
 * `published`: succeeded, dead-lettered, retrying (it failed at least once and is not
 * done) or on its first attempt (not done, never failed). Read from what the report reads:
 * the simulation ledger and the worker's log lines, keyed by the message's first SQS id.
 */
export interface Progress {
  elapsedSeconds: number;
  published: number;
  succeeded: number;
  deadLettered: number;
  retrying: number;
  firstAttempt: number;
}

/** The worker's log lines that retried, deferred or dead-lettered a message. */
function loggedIds(output: string): { failed: Set<string>; deadLettered: Set<string> } {
  const failed = new Set<string>();
  const deadLettered = new Set<string>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes('originalMessageId')) continue;
    try {
      const { msg, originalMessageId } = JSON.parse(line) as { msg?: string; originalMessageId?: string };
      if (!msg || !originalMessageId) continue;
      if (msg.includes('retrying')) failed.add(originalMessageId);
      else if (msg.startsWith('dead-lettered')) deadLettered.add(originalMessageId);
    } catch {
      // not a log line of ours
    }
  }
  return { failed, deadLettered };
}

export function progressOf(published: number, ledger: readonly SimulationLedgerLine[], workerOutput: string, elapsedSeconds: number): Progress {
  const succeeded = new Set(ledger.map((line) => line.originalMessageId ?? line.id));
  const logged = loggedIds(workerOutput);
  const deadLettered = [...logged.deadLettered].filter((id) => !succeeded.has(id));
  const ended = new Set([...succeeded, ...deadLettered]);
  const retrying = [...logged.failed].filter((id) => !ended.has(id)).length;
  return {
    elapsedSeconds,
    published,
    succeeded: succeeded.size,
    deadLettered: deadLettered.length,
    retrying,
    firstAttempt: Math.max(0, published - ended.size - retrying),
  };
}
