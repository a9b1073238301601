import type { StandardSchemaV1 } from '@standard-schema/spec';

/**
 * A message body schema: any Standard Schema validator (zod, valibot, arktype, …). Its
 * output type is the body the handler receives.
 */
export type BodySchema<Output = unknown> = StandardSchemaV1<unknown, Output>;

/** The body type a schema produces: `WorkerMessage<InferBody<typeof schema>>`. */
export type InferBody<S extends BodySchema> = StandardSchemaV1.InferOutput<S>;

/** At most this many issues are listed in `x-dead-letter.error`, and the list is cut at `MAX_ISSUES_TEXT`. */
const MAX_ISSUES = 10;
const MAX_ISSUES_TEXT = 1000;

export type BodyValidation =
  | { ok: true; value: unknown }
  /** The body does not match: dead-letter it now, it never will. */
  | { ok: false; invalid: true; error: string }
  /** The validator itself threw: a bug in the application, not in the message. */
  | { ok: false; invalid: false; error: string };

/** Validates a body with the consumer's schema, in the validator's own words when it fails. */
export async function validateBody(schema: BodySchema, body: unknown): Promise<BodyValidation> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(body);
  } catch (error) {
    return {
      ok: false,
      invalid: false,
      error: `the body schema (${schema['~standard'].vendor}) threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, invalid: true, error: describeIssues(result.issues) };
}

/** `body failed validation: amountCents: Expected number, received string; items[0].sku: Required (+3 more)`. */
export function describeIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  const listed = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = formatPath(issue.path);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = issues.length > MAX_ISSUES ? ` (+${issues.length - MAX_ISSUES} more)` : '';
  const text = `body failed validation: ${listed.join('; ')}${more}`;
  return text.length > MAX_ISSUES_TEXT ? `${text.slice(0, MAX_ISSUES_TEXT - 1)}…` : text;
}

function formatPath(path: StandardSchemaV1.Issue['path']): string {
  let text = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment;
    if (typeof key === 'number') text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}
