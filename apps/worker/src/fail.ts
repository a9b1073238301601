import { redactUrlCredentials } from '@requeue/retry/engine';

/** Ends the worker with one line on stderr (credentials in URLs redacted) and exit code 1. */
export function fail(message: string): never {
  process.stderr.write(`requeue worker: ${redactUrlCredentials(message)}\n`);
  process.exit(1);
}
