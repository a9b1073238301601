/** What a secret is replaced with, in error text and logs. */
export const REDACTED = '[redacted]';

/**
 * A rule: the pattern, its replacement, and a character or word it cannot match without,
 * looked for first: most error text holds none, and a search for one is far cheaper than
 * a case-insensitive scan with look-behind.
 */
type Rule = readonly [pattern: RegExp, replacement: string, needs: (text: string) => boolean];

const hasAt = (text: string) => text.includes('@');
const hasQuery = (text: string) => text.includes('?') && text.includes('://');
const hasAuthScheme = (text: string) => text.includes('Bearer') || text.includes('Basic');
const hasKeyValue = (text: string) => text.includes(':') || text.includes('=');

/** The names whose values are secrets, as pattern alternatives. */
const SECRET_KEYS = [
  'password',
  'passwd',
  'pwd',
  'secret',
  'client[_-]?secret',
  'token',
  'access[_-]?token',
  'refresh[_-]?token',
  'api[_-]?key',
  'x-api-key',
  'access[_-]?key',
  'authorization',
  'cookie',
  'card[_-]?number',
  'card',
  'cvc',
  'cvv',
  'pan',
].join('|');

// Order matters: a bearer token before the generic `authorization: value` rule, which
// would otherwise take only the word "Bearer".
const URL_CREDENTIALS: readonly Rule[] = [
  // Credentials in a URL: scheme://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"']+(?::[^/\s@"']*)?@/gi, `$1${REDACTED}@`, hasAt],
  // The same in a mistyped URL (`redis//:password@host`): whatever stands between `//` and `@`.
  [/(\/\/)[^/\s@"']+@/g, `$1${REDACTED}@`, hasAt],
];

const SECRET_PATTERNS: readonly Rule[] = [
  ...URL_CREDENTIALS,
  // A URL's query string carries API keys and signatures as often as not.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi, `$1?${REDACTED}`, hasQuery],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*/g, `$1 ${REDACTED}`, hasAuthScheme],
  // key: value, key=value and "key":"value" for the usual secret-bearing names. Not inside
  // a longer word ("japan: 5" is no card number), but after `_` or `-` ("db_password=").
  [new RegExp(`((?<![a-z])(?:${SECRET_KEYS})["']?\\s*[:=]\\s*)("[^"]*"|'[^']*'|[^\\s,;&}\\]]+)`, 'gi'), `$1${REDACTED}`, hasKeyValue],
];

/** Longest text scanned: error text is bounded to 256 characters afterwards anyway. */
const MAX_SCANNED = 4096;

/**
 * Removes secrets from error text before it is logged or written into `x-retry` and
 * `x-dead-letter`: URL credentials and query strings, bearer and basic tokens, and the
 * values of secret-bearing keys (password, token, api key, card, …) in `key=value`,
 * `key: value` and JSON form. Text is what errors carry, so paths alone cannot catch it.
 */
export function redactSecrets(text: string): string {
  let redacted = text.length > MAX_SCANNED ? text.slice(0, MAX_SCANNED) : text;
  for (const [pattern, replacement, needs] of SECRET_PATTERNS) if (needs(redacted)) redacted = redacted.replace(pattern, replacement);
  return redacted;
}

/**
 * Replaces the user and password of every URL in `text` (`https://user:pass@host` →
 * `https://[redacted]@host`), and nothing else: for output that names queues and
 * endpoints, which an operator may have configured with credentials in them.
 */
export function redactUrlCredentials(text: string): string {
  if (!hasAt(text)) return text;
  let redacted = text;
  for (const [pattern, replacement] of URL_CREDENTIALS) redacted = redacted.replace(pattern, replacement);
  return redacted;
}
