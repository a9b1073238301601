import { parseCommandArgs, parseDuration, parsePositiveInteger } from '../args.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../dlq/command.js';
import { renderReport, summarize } from './report.js';
import { runDemo, type Progress } from './run.js';
import { demoWorkload } from './workload.js';

function parsePort(value: string): number {
  const port = value === '0' ? 0 : parsePositiveInteger('--dashboard-port', value);
  if (port > 65_535) throw new CliError(`--dashboard-port must be at most 65535, got ${port}`, 2);
  return port;
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

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
  const { values } = parseCommandArgs('demo', argv, {
    json: { type: 'boolean', default: false },
    dashboard: { type: 'boolean', default: false },
    'dashboard-port': { type: 'string' },
    'publish-delay': { type: 'string' },
    fifo: { type: 'boolean', default: false },
  });
  const dashboardPort = values['dashboard-port'] !== undefined ? parsePort(values['dashboard-port']) : values.dashboard ? 8081 : undefined;
  const publishDelayMs = values['publish-delay'] !== undefined ? parseDuration('--publish-delay', values['publish-delay']) : dashboardPort !== undefined ? 5000 : 0;
  const workload = demoWorkload();
  const tty = process.stderr.isTTY;
  const topic = values.fifo ? 'SNS FIFO topic of the stack (4 message groups)' : 'SNS topic of the stack';
  io.err(`requeue demo: ${workload.length} messages published to the ${topic}, on an embedded emulator`);
  let report = '';
  const run = await runDemo(workload, {
    onProgress: (progress) => {
      if (tty) process.stderr.write(`\r${statusLine(progress)}`);
      else io.err(statusLine(progress));
    },
    dashboardPort,
    publishDelayMs,
    fifo: values.fifo,
    onDashboard: (url) => io.err(`dashboard: ${url}${publishDelayMs ? `  (publishing in ${publishDelayMs / 1000} s)` : ''}`),
    holdOpen: dashboardPort === undefined ? undefined : async (finished) => {
      if (tty) process.stderr.write('\n');
      report = render(finished);
      io.out(report);
      io.err('The dashboard stays up: replay or discard dead letters there. Ctrl-C to stop.');
      await untilInterrupted();
    },
  });
  if (tty && dashboardPort === undefined) process.stderr.write('\n');
  const { summary } = summarize(workload, run);
  if (!report) io.out(render(run));
  function render(finished: typeof run): string {
    const { summary: done, outcomes } = summarize(workload, finished);
    return values.json ? JSON.stringify(done, null, 2) : renderReport(workload, done, outcomes);
  }
  if (summary.lost.length > 0 || summary.unexpected.length > 0) {
    throw new CliError(`not every message ended where it should: lost ${summary.lost.length}, unexpected ${summary.unexpected.length}`);
  }
  if (summary.fifo && summary.fifo.inOrder < summary.fifo.groups) {
    throw new CliError(`FIFO order broken: ${summary.fifo.groups - summary.fifo.inOrder} of ${summary.fifo.groups} groups succeeded out of publish order`);
  }
}
