import type { z } from 'zod';

/**
 * Runs a schema and turns its first issue into the caller's typed error, naming the
 * dotted path of the offending field.
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  toError: (path: string, problem: string, cause: z.ZodError) => Error,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw toError(issue?.path.join('.') ?? '', issue?.message ?? 'invalid', result.error);
}
