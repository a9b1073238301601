import { parseCommandArgs } from '../args.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../dlq/command.js';
import { renderReport, summarize } from './report.js';
import { runDemo, type Progress } from './run.js';
import { demoWorkload } from './workload.js';

function statusLine(p: Progress): string {
  const done = p.succeeded + p.deadLettered;
  const width = 30;
  const filled = Math.round((done / p.published) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.elapsedSeconds.toFixed(0).padStart(3)} s  succeeded ${p.succeeded}  retrying ${p.retrying}  waiting ${p.waiting}  dead-lettered ${p.deadLettered}  / ${p.published}`;
}

/**
 * `requeue demo`: the whole system in under a minute. Progress goes to stderr; the report
 * (or with --json the summary document) to stdout. Exits 0 only when every published
 * message succeeded or reached the DLQ with the reason its kind calls for.
 */
export async function runDemoCommand(argv: string[], io: CliIo): Promise<void> {
  const { values } = parseCommandArgs('demo', argv, { json: { type: 'boolean', default: false } });
  const workload = demoWorkload();
  const tty = process.stderr.isTTY;
  io.err(`requeue demo: ${workload.length} messages published to the SNS topic of the stack, on an embedded emulator`);
  const run = await runDemo(workload, (progress) => {
    if (tty) process.stderr.write(`\r${statusLine(progress)}`);
    else io.err(statusLine(progress));
  });
  if (tty) process.stderr.write('\n');
  const { summary, outcomes } = summarize(workload, run);
  io.out(values.json ? JSON.stringify(summary, null, 2) : renderReport(workload, summary, outcomes));
  if (summary.lost.length > 0 || summary.unexpected.length > 0) {
    throw new CliError(`not every message ended where it should: lost ${summary.lost.length}, unexpected ${summary.unexpected.length}`);
  }
}
