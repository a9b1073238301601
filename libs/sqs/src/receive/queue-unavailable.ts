import { redactUrlCredentials } from '@requeue/retry/engine';
/** Why the worker could not read its queue. */
export type QueueUnavailableReason = 'no-credentials' | 'no-queue' | 'access-denied' | 'unreachable' | 'other';

/**
 * `start()` could not read the queue's attributes. The message says what to do;
 * `reason` is for code that decides whether waiting may help (only `unreachable` and
 * `other` may pass on their own); `cause` is the SDK's error.
 */
export class QueueUnavailableError extends Error {
  constructor(
    /** The queue the worker was given, without any credentials its URL carried (errors are logged). */
    readonly queueUrl: string,
    /** What went wrong, in a word. */
    readonly reason: QueueUnavailableReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'QueueUnavailableError';
  }

  /**
   * The SDK's error for a call on `queueUrl`, classified: one line saying what went wrong
   * and what to do, the reason in a word, and the SDK's error as `cause`.
   */
  static from(error: unknown, queueUrl: string): QueueUnavailableError {
    return queueUnavailable(error, queueUrl);
  }
}

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidSignatureException',
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH']);

/** The SDK's error for a queue call, as one line saying what went wrong and what to do. */
function queueUnavailable(error: unknown, queueUrl: string): QueueUnavailableError {
  const name = (error as { name?: unknown } | null)?.name;
  const errorName = typeof name === 'string' ? name : '';
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code ?? (error as { cause?: { code?: string } } | null)?.cause?.code;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  // The URL as an operator may have written it, credentials and all: never into a message.
  const shown = redactUrlCredentials(queueUrl);
  const fail = (reason: QueueUnavailableReason, text: string) => new QueueUnavailableError(shown, reason, text, { cause: error });
  if (CREDENTIAL_ERRORS.has(errorName) || /could not load credentials/i.test(message)) {
    return fail(
      'no-credentials',
      `no usable AWS credentials for ${shown} (${errorName || message}): configure the standard chain (AWS_PROFILE, ` +
        `AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a task role); an emulator takes any values`,
    );
  }
  if (errorName === 'QueueDoesNotExist' || errorName.includes('NonExistentQueue')) {
    return fail('no-queue', `queue ${shown} does not exist: check its URL, and for an emulator AWS_ENDPOINT_URL and the region`);
  }
  if (errorName.includes('AccessDenied') || status === 403) {
    return fail(
      'access-denied',
      `access to ${shown} denied (${errorName || status}): the role needs sqs:GetQueueAttributes, sqs:ReceiveMessage, ` +
        `sqs:DeleteMessage, sqs:ChangeMessageVisibility and sqs:SendMessage on it, and sqs:SendMessage on the DLQ`,
    );
  }
  if ((code !== undefined && UNREACHABLE_CODES.has(code)) || /ECONNREFUSED|ENOTFOUND|getaddrinfo/.test(message)) {
    return fail('unreachable', `nothing answers for ${shown} (${code ?? message}): check AWS_ENDPOINT_URL (for an emulator, is it running?) and the network`);
  }
  return fail('other', `could not read ${shown}: ${errorName ? `${errorName}: ` : ''}${message}`);
}
