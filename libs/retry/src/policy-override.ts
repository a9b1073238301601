import { z } from 'zod';
import { InvalidRetryStateError } from './errors.js';
import type { PolicyOverride } from './policy-types.js';
import { jitterSchema, jsonBackoffSchema, limitsShape } from './policy-config.js';
import { Bounds } from './bounds.js';
import { parseAttributeJson } from './attribute-json.js';

/**
 * The attribute a publisher sets to override the policy for one message (docs/contracts.md, section
 * 3).
 */
export const RETRY_POLICY_ATTRIBUTE = 'x-retry-policy';

const MAX_OVERRIDE_CHARS = 1024;

const overrideSchema = z.strictObject({
  maxAttempts: limitsShape.maxAttempts.optional(),
  deadlineSeconds: limitsShape.deadlineSeconds.optional(),
  /** Replaces the backoff of every error type for this message. */
  backoff: z
    .intersection(jsonBackoffSchema, z.object({ maxDelayMs: z.number().int().min(0).max(Bounds.maxDelayMs).optional(), jitter: jitterSchema.optional() }))
    .optional(),
});

// The public shape is written out in policy-types.ts; this fails to compile if the schema drifts from it.
void (true satisfies [PolicyOverride] extends [z.output<typeof overrideSchema>]
  ? [z.output<typeof overrideSchema>] extends [PolicyOverride]
    ? true
    : false
  : false);

/**
 * Parses `x-retry-policy`. An invalid override throws `InvalidRetryStateError`; the worker
 * logs a warning and ignores it, so a publisher's typo never costs a message. A custom
 * strategy is chosen by a name among `strategyNames`, the ones the policy registered.
 */
export function parsePolicyOverride(raw: string, strategyNames: readonly string[] = []): PolicyOverride {
  if (raw.length > MAX_OVERRIDE_CHARS) {
    throw new InvalidRetryStateError('x-retry-policy', `${raw.length} characters is longer than the ${MAX_OVERRIDE_CHARS} allowed`);
  }
  const override = parseAttributeJson(overrideSchema, raw, 'x-retry-policy');
  const backoff = override.backoff;
  if (backoff?.type === 'custom' && !strategyNames.includes(backoff.name)) {
    throw new InvalidRetryStateError('x-retry-policy', `backoff.name: no custom strategy is registered as ${JSON.stringify(backoff.name)}`);
  }
  return override;
}

/** `x-retry-policy`'s value for a parsed override: what a retry copy carries. */
export function encodePolicyOverride(override: PolicyOverride): string {
  return JSON.stringify(override);
}
