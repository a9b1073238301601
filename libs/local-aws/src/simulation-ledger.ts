import { existsSync, readFileSync } from 'node:fs';

/** One line of the simulation handler's ledger: a success (docs/contracts.md, 4.1). */
export interface SimulationLedgerLine {
  id: string;
  attempt: number;
  messageId: string;
  at: number;
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
