import { existsSync, readFileSync } from 'node:fs';

export interface LedgerLine {
  id: string;
  attempt: number;
  messageId: string;
  at: number;
}

/** The simulation handler's ledger: one JSON line per success. */
export function readLedger(path: string): LedgerLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerLine);
}
