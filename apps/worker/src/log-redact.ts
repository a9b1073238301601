/**
 * Paths the worker really logs that can hold secrets: `err` is any error an SDK or HTTP
 * client threw, and such errors carry the request they made (headers, auth, body) and
 * the response. Error text (`error`, `problem`, `deadLetter.error`) is scrubbed where it
 * is made, by the classifier; `err`'s message and stack are scrubbed by its serializer.
 */
export const DEFAULT_LOG_REDACT: readonly string[] = [
  'err.config.headers',
  'err.config.auth',
  'err.config.data',
  'err.request',
  'err.response.config',
  'err.response.request',
  'err.response.headers',
  'err.headers',
];
