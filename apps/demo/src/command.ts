import { parseArgs } from 'node:util';
import { DemoError } from './errors.js';
import { renderReport, summarize } from './report.js';
import { runDemo, type Progress } from './run.js';
import { demoWorkload } from './workload.js';

/** Where the demo writes: the report to `out`, progress to `err`. */
export interface DemoIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new DemoError(`--dashboard-port takes a port from 0 to 65535, got ${JSON.stringify(value)}`, 2);
  return port;
}

/** "5s" or "1.5s": the publish delay, in milliseconds. */
function parseSeconds(value: string): number {
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  if (!match) throw new DemoError(`--publish-delay takes seconds such as 5s, got ${JSON.stringify(value)}`, 2);
  return Number(match[1]) * 1000;
}

function parseDemoArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        json: { type: 'boolean', default: false },
        dashboard: { type: 'boolean', default: false },
        'dashboard-port': { type: 'string' },
        'publish-delay': { type: 'string' },
        fifo: { type: 'boolean', default: false },
      },
    });
  } catch (cause) {
    throw new DemoError(`demo: ${(cause as Error).message}`, 2, { cause });
  }
}

/**
 * Resolves on the first SIGINT or SIGTERM. One Ctrl-C arrives more than once (the terminal
 * signals the foreground group, and `npm run` passes it on again): repeats within 500 ms
 * are that press; a later one exits at once.
 */
function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    let firstAt: number | undefined;
    const onSignal = () => {
      if (firstAt === undefined) {
        firstAt = Date.now();
        resolve();
      } else if (Date.now() - firstAt >= 500) process.exit(1);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function statusLine(p: Progress): string {
  const done = p.succeeded + p.deadLettered;
  const width = 30;
  const filled = Math.round((done / p.published) * width);
  return (
    `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.elapsedSeconds.toFixed(0).padStart(3)} s  succeeded ` +
    `${p.succeeded}  dead-lettered ${p.deadLettered}  retrying ${p.retrying}  first attempt ${p.firstAttempt}  / ${p.published}`
  );
}

/**
 * `npm run demo`: the whole system in under a minute. Progress goes to stderr; the report
 * (or with --json the summary document) to stdout. Exits 0 only when every published
 * message succeeded or reached the DLQ with the reason its kind calls for.
 */
export async function runDemoCommand(argv: string[], io: DemoIo): Promise<void> {
  const { values } = parseDemoArgs(argv);
  const dashboardPort = values['dashboard-port'] !== undefined ? parsePort(values['dashboard-port']) : values.dashboard ? 8081 : undefined;
  const publishDelayMs = values['publish-delay'] !== undefined ? parseSeconds(values['publish-delay']) : dashboardPort !== undefined ? 5000 : 0;
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
    holdOpen:
      dashboardPort === undefined
        ? undefined
        : async (finished) => {
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
    const keptUp = dashboardPort === undefined ? undefined : { dlqUrl: finished.local.dlqUrl };
    return values.json ? JSON.stringify(done, null, 2) : renderReport(workload, done, outcomes, keptUp);
  }
  if (summary.lost.length > 0 || summary.unexpected.length > 0) {
    throw new DemoError(`not every message ended where it should: lost ${summary.lost.length}, unexpected ${summary.unexpected.length}`);
  }
  if (summary.fifo && summary.fifo.inOrder < summary.fifo.groups) {
    throw new DemoError(`FIFO order broken: ${summary.fifo.groups - summary.fifo.inOrder} of ${summary.fifo.groups} groups succeeded out of publish order`);
  }
}
