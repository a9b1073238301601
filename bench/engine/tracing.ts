/**
 * `npm run bench:tracing`: what tracing adds to the engine's own CPU per message, with
 * nothing else in the process (no HTTP, no emulator): each mode (off, no SDK, the Node
 * SDK with a batch processor, the same SDK's bare spans) runs the same backlog against an
 * in-memory queue in its own process (V8 flags as deployed), in rounds, with and without
 * a `traceparent` on every message. The peer bench's tracing rows measure the same
 * through a whole worker, where the machine's noise is larger than what tracing costs;
 * this bench resolves that cost.
 */
import { progress, wantsJson } from '../report.js';
import { summarizeRuns } from '../peers/measurement.js';
import { inRounds, TRACING_MODES, type RunSpec } from './runs.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const messages = quick ? 5_000 : 100_000;
const rounds = quick ? 1 : 5;
const specs: RunSpec[] = [false, true].flatMap((tracedIn) =>
  TRACING_MODES.map((tracing) => ({ tracing, tracedIn, messages, latencyMs: 0, handlerMs: 0, maxInFlight: 50 })),
);
const results = await inRounds(specs, rounds, (round) =>
  progress(`round ${round + 1} of ${rounds}: ${specs.length} runs of ${messages.toLocaleString('en-US')} messages`),
);
const cells = specs.map((spec, i) => ({
  tracing: spec.tracing,
  tracedIn: spec.tracedIn,
  cpuMicrosPerMessage: summarizeRuns(results[i]!.map((r) => r.cpuMicrosPerMessage)),
}));

function table(): string {
  const lines = ['| messages arrive | tracing | engine CPU per message (µs, median) | range | over tracing off (µs) |', '|---|---|---|---|---|'];
  for (const { tracing, tracedIn, cpuMicrosPerMessage: cpu } of cells) {
    const off = cells.find((c) => c.tracing === 'off' && c.tracedIn === tracedIn)!.cpuMicrosPerMessage;
    const extra = tracing === 'off' ? '' : (cpu.median - off.median).toFixed(1);
    lines.push(
      `| ${tracedIn ? 'with a traceparent' : 'without context'} | ${tracing} | ${cpu.median.toFixed(1)} | ${cpu.min.toFixed(1)}-${cpu.max.toFixed(1)} | ${extra} |`,
    );
  }
  return lines.join('\n');
}

process.stdout.write(wantsJson(argv) ? `${JSON.stringify(cells, null, 2)}\n` : `${table()}\n`);
