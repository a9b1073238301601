/** A dead-letter operation that could not be completed; nothing was lost (see the message). */
export class DeadLetterOperationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeadLetterOperationError';
  }
}
