/** A demo failure the user can act on: printed as one line, with what to do. */
export class DemoError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DemoError';
  }
}
