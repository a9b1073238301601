import { readProperty } from './safe-read.js';

/**
 * Parses an HTTP `Retry-After` value (RFC 9110 10.2.3): either delay-seconds or an
 * HTTP-date. Returns the wait in milliseconds from `now`, or undefined when the value
 * is absent or unusable. A date in the past means "now" (0 ms).
 */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Reads `retry-after` from a fetch `Headers`, or a plain header record of any case. */
export function retryAfterFromHeaders(headers: unknown, now: number): number | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const get = readProperty(headers, 'get');
  if (typeof get === 'function') {
    try {
      return parseRetryAfter(get.call(headers, 'retry-after'), now);
    } catch {
      return undefined;
    }
  }
  return parseRetryAfter(readProperty(headers, 'retry-after') ?? readProperty(headers, 'Retry-After'), now);
}
