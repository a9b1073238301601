import type { z } from 'zod';
import { InvalidRetryStateError, type RetryAttribute } from './errors.js';
import { validateWith } from './validate.js';

/**
 * Parses a retry attribute's JSON and checks it against its schema. Anything wrong (not
 * JSON, wrong shape, out of range) is an `InvalidRetryStateError` naming the attribute
 * and the field; nothing else is ever thrown. `wellFormed`, when given, accepts the
 * common case without running the schema; it must accept nothing the schema rejects, and
 * what it does not accept still goes to the schema, for the error that names the field.
 */
export function parseAttributeJson<S extends z.ZodType>(
  schema: S,
  raw: string,
  attribute: RetryAttribute,
  wellFormed?: (value: unknown) => value is z.output<S>,
): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new InvalidRetryStateError(attribute, 'not JSON', { cause });
  }
  if (wellFormed?.(value)) return value;
  return validateWith(schema, value, (path, problem, cause) => new InvalidRetryStateError(attribute, `${path || 'value'}: ${problem}`, { cause }));
}
