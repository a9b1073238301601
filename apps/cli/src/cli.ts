import { redactUrlCredentials } from '@requeue/retry/engine';
import { runDlqCommand } from './dlq/command.js';
import { terminalQuestion } from './io.js';
import { CliError } from './errors.js';
import { runLocalCommand } from './local/command.js';
import { runSimulateCommand } from './simulate/command.js';

const USAGE = `usage: requeue <command>

  dlq <list|replay|discard|redrive> [options]   inspect, replay or discard dead letters (requeue dlq --help)
  local [--template <file>] [--port N]          an SQS/SNS emulator on 127.0.0.1 with your stack's queues (requeue local --help)
  simulate [--profile <file>] [--policy <file>]  a retry policy against your traffic and an outage, in virtual time (requeue simulate --help)`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // Queue URLs and endpoints may carry credentials: none reaches the terminal.
  const io = {
    out: (text: string) => process.stdout.write(`${redactUrlCredentials(text)}\n`),
    err: (text: string) => process.stderr.write(`${redactUrlCredentials(text)}\n`),
    env: process.env,
    ask: terminalQuestion(),
  };
  switch (command) {
    case 'dlq':
      return runDlqCommand(rest, io);
    case 'local':
      return runLocalCommand(rest, io);
    case 'simulate':
      return runSimulateCommand(rest, io);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.out(USAGE);
      return;
    default:
      throw new CliError(`unknown command ${JSON.stringify(command)}\n${USAGE}`, 2);
  }
}

/**
 * Exits once stdout and stderr have taken everything written: `process.exit` drops what a
 * pipe has not read yet (64 KiB on Linux), which cut `dlq list --json` short in a pipe.
 */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(
  () => exitAfterOutput(Number(process.exitCode ?? 0)),
  (error: unknown) => {
    const known = error instanceof CliError;
    const text = known ? error.message : `unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    process.stderr.write(`requeue: ${redactUrlCredentials(text)}\n`);
    exitAfterOutput(known ? error.exitCode : 1);
  },
);
