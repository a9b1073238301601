import type { z } from 'zod';
import { InvalidRetryStateError, type RetryAttribute } from './errors.js';
import { validateWith } from './validate.js';

/**
 * Parses a retry attribute's JSON and checks it against its schema. Anything wrong (not
 * JSON, wrong shape, out of range) is an `InvalidRetryStateError` naming the attribute
 * and the field; nothing else is ever thrown.
 */
export function parseAttributeJson<S extends z.ZodType>(schema: S, raw: string, attribute: RetryAttribute): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new InvalidRetryStateError(attribute, 'not JSON', { cause });
  }
  return validateWith(schema, value, (path, problem, cause) => new InvalidRetryStateError(attribute, `${path || 'value'}: ${problem}`, { cause }));
}
