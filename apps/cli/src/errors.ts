/** A failure the user can act on: printed as one line, with what to do, and exit code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Bad arguments: exit code 2, like most CLIs. */
export class CliUsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 2, options);
    this.name = 'CliUsageError';
  }
}
