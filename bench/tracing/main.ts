/**
 * `npm run bench:tracing`: what tracing adds to the engine's own CPU per message, with
 * nothing else in the process (no HTTP, no emulator): each mode (off, no SDK, the Node
 * SDK with a batch processor) runs the same backlog against an in-memory queue in its own
 * process (V8 flags as deployed), in rounds, with and without a `traceparent` on every message. The peer bench's
 * tracing rows measure the same through a whole worker, where the machine's noise is larger
 * than what tracing costs; this bench resolves that cost.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { workerNodeOptions } from '@requeue/cdk';
import { progress, wantsJson } from '../report.js';
import { TRACING_MODES, type TracingMode } from './modes.js';

const runFile = promisify(execFile);
const ENGINE = fileURLToPath(new URL('./engine.js', import.meta.url));

interface Cell {
  mode: TracingMode;
  tracedIn: boolean;
  cpuMicrosPerMessage: number[];
}

async function runOnce(mode: TracingMode, messages: number, tracedIn: boolean): Promise<number> {
  // V8 sized as the stack sizes it for the default 512 MB task: spans the batch processor holds are then promoted sooner.
  const { stdout } = await runFile(process.execPath, [...workerNodeOptions(512).split(' '), ENGINE, mode, String(messages), tracedIn ? '1' : '0']);
  return (JSON.parse(stdout) as { cpuMicrosPerMessage: number }).cpuMicrosPerMessage;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(rounds: number, messages: number): Promise<Cell[]> {
  const cells: Cell[] = [false, true].flatMap((tracedIn) => TRACING_MODES.map((mode) => ({ mode, tracedIn, cpuMicrosPerMessage: [] as number[] })));
  for (let round = 0; round < rounds; round++) {
    progress(`round ${round + 1} of ${rounds}: ${cells.length} runs of ${messages.toLocaleString('en-US')} messages`);
    // Each round starts one cell further on, so no mode is always first after a pause.
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[(round + k) % cells.length]!;
      cell.cpuMicrosPerMessage.push(await runOnce(cell.mode, messages, cell.tracedIn));
    }
  }
  return cells;
}

function table(cells: readonly Cell[]): string {
  const lines = ['| messages arrive | tracing | engine CPU per message (µs, median) | range | over tracing off (µs) |', '|---|---|---|---|---|'];
  for (const cell of cells) {
    const off = cells.find((c) => c.mode === 'off' && c.tracedIn === cell.tracedIn)!;
    const extra = median(cell.cpuMicrosPerMessage) - median(off.cpuMicrosPerMessage);
    const range = `${Math.min(...cell.cpuMicrosPerMessage).toFixed(1)}-${Math.max(...cell.cpuMicrosPerMessage).toFixed(1)}`;
    lines.push(`| ${cell.tracedIn ? 'with a traceparent' : 'without context'} | ${cell.mode} | ${median(cell.cpuMicrosPerMessage).toFixed(1)} | ${range} | ${cell.mode === 'off' ? '' : extra.toFixed(1)} |`);
  }
  return lines.join('\n');
}

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const cells = await measure(quick ? 1 : 5, quick ? 5_000 : 100_000);
process.stdout.write(wantsJson(argv) ? `${JSON.stringify(cells, null, 2)}\n` : `${table(cells)}\n`);
