/**
 * The ledger the requeue worker app's simulation handler writes (`SIMULATION_LEDGER`), for
 * demos and tests that count what ran.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';

/** One line of the simulation handler's ledger: a success (docs/contracts.md, 4.1). */
export interface SimulationLedgerLine {
  /** The job's `id` from its body. */
  id: string;
  /** The attempt that succeeded, from 1. */
  attempt: number;
  /** The SQS message id of the delivery that succeeded. */
  messageId: string;
  /** When it succeeded, in epoch ms. */
  at: number;
  /** The first delivery's message id, when this one was a retry copy. */
  originalMessageId?: string;
}

/** The simulation handler's ledger (`SIMULATION_LEDGER`): one JSON line per success, in the order they happened. */
export function readSimulationLedger(path: string): SimulationLedgerLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SimulationLedgerLine);
}
