import { z } from 'zod';
import { Bounds } from './bounds.js';
import type { ClassifierOptions } from './classify.js';
import type { Backoff, CustomBackoff, Jitter, JitterInput, NamedCustomBackoff, RetryPolicyInput, RetryPolicyJson } from './policy-types.js';
import { ErrorType } from './error-types.js';
import { RetryPolicyConfigError } from './errors.js';
import { validateWith } from './validate.js';

const delayMs = z.number().int().min(0).max(Bounds.maxDelayMs);
const multiplier = z.number().min(1).max(Bounds.maxMultiplier);

const fixedBackoff = z.strictObject({ type: z.literal('fixed'), delayMs });
const linearBackoff = z.strictObject({ type: z.literal('linear'), baseMs: delayMs, incrementMs: delayMs.optional() });
const exponentialBackoff = z.strictObject({ type: z.literal('exponential'), baseMs: delayMs, multiplier: multiplier.default(3) });
const decorrelatedBackoff = z.strictObject({ type: z.literal('decorrelated'), baseMs: delayMs, multiplier: multiplier.default(3) });
const customBackoff = z.strictObject({
  type: z.literal('custom'),
  compute: z.custom<CustomBackoff>((value) => typeof value === 'function', 'must be a function'),
});
/** A custom strategy registered by name in `strategies`: the form JSON can name. */
const namedCustomBackoff = z.strictObject({ type: z.literal('custom'), name: z.string().min(1).max(64) });

const jitterObject = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('full') }),
  z.strictObject({ type: z.literal('equal') }),
  z.strictObject({ type: z.literal('decorrelated') }),
  z.strictObject({ type: z.literal('proportional'), fraction: z.number().min(0).max(1) }),
  z.strictObject({
    type: z.literal('symmetric'),
    ms: z
      .number()
      .min(0)
      .max(Bounds.maxSqsDelaySeconds * 1000),
  }),
]);
/** `"full"` is shorthand for `{ "type": "full" }`, for the jitters that take no parameter. */
const jitterSchema = z.union([z.enum(['none', 'full', 'equal', 'decorrelated']).transform((type) => ({ type })), jitterObject]);

const builtInBackoffSchema = z.discriminatedUnion('type', [fixedBackoff, linearBackoff, exponentialBackoff, decorrelatedBackoff]);
/** Strategies expressible in JSON: RETRY_POLICY and the `x-retry-policy` attribute. */
export const jsonBackoffSchema = z.union([builtInBackoffSchema, namedCustomBackoff]);
const anyBackoffSchema = z.union([builtInBackoffSchema, customBackoff, namedCustomBackoff]);
export { jitterSchema };

export const limitsShape = {
  maxAttempts: z.number().int().min(1).max(Bounds.maxAttempts),
  deadlineSeconds: z.number().int().min(1).max(Bounds.maxDeadlineSeconds),
};

function policyInputSchema<B extends z.ZodType>(backoff: B) {
  const typePolicy = z.strictObject({ backoff: backoff.optional(), maxDelayMs: delayMs.optional(), jitter: jitterSchema.optional() });
  return z.strictObject({
    maxAttempts: limitsShape.maxAttempts.optional(),
    /** null turns the shipped deadline off. */
    deadlineSeconds: limitsShape.deadlineSeconds.nullable().optional(),
    /** Cap for error types that do not set their own `maxDelayMs`. A type's own maximum wins. */
    maxDelayMs: delayMs.optional(),
    /** Jitter for error types that do not set their own. */
    jitter: jitterSchema.optional(),
    /** Longest single SQS delay; longer waits hop. Only tests need less than 900. */
    hopCeilingSeconds: z.number().int().min(1).max(Bounds.maxSqsDelaySeconds).optional(),
    types: z.record(z.string().min(1).max(64), typePolicy).optional(),
    /**
     * What a message's `x-retry-policy` may ask for: at most these attempts and this
     * deadline, and no retry sooner than `minDelayMs`. A publisher may lower the budget,
     * never raise it past these. @default the policy's own maxAttempts and deadline, 1 s
     */
    overrideCeilings: z
      .strictObject({
        maxAttempts: limitsShape.maxAttempts.optional(),
        deadlineSeconds: limitsShape.deadlineSeconds.optional(),
        minDelayMs: delayMs.optional(),
      })
      .optional(),
    /** Error classes that mean a bug in the handler (`ClassifierOptions.codeBugErrors`); false retries them. */
    codeBugErrors: z.union([z.literal(false), z.array(z.string().min(1).max(64)).max(50)]).optional(),
  });
}

const jsonPolicySchema = policyInputSchema(jsonBackoffSchema);
const codePolicySchema = policyInputSchema(anyBackoffSchema);

/**
 * The public types are written out (policy-types.ts) so the API reads as plain shapes; this
 * fails to compile when a schema and its type drift apart.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
void (true satisfies Same<RetryPolicyJson, z.input<typeof jsonPolicySchema>> &
  Same<Omit<RetryPolicyInput, 'classifier' | 'strategies'>, z.input<typeof codePolicySchema>> &
  Same<Backoff, z.output<typeof builtInBackoffSchema> | z.output<typeof customBackoff>> &
  Same<Jitter, z.output<typeof jitterObject>> &
  Same<JitterInput, z.input<typeof jitterSchema>>);

/** One error type's policy as it runs: every field filled in. */
export interface ErrorTypePolicy {
  /** How the delay grows with the attempt. */
  backoff: Backoff;
  /** The longest delay, before jitter. */
  maxDelayMs: number;
  /** How the delay is spread. */
  jitter: Jitter;
}

/** A fully resolved policy: every error type has a complete policy, `DEFAULT` included. */
export interface ResolvedRetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Seconds from the first receive to the deadline; undefined for none. */
  deadlineSeconds: number | undefined;
  /** The longest single SQS delay; longer waits hop. */
  hopCeilingSeconds: number;
  /** Each error type's policy, `DEFAULT` included. */
  types: Readonly<Record<string, ErrorTypePolicy>>;
  /** How thrown values are classified. */
  classifier: ClassifierOptions;
  /** The custom strategies JSON may name. */
  strategies: Readonly<Record<string, CustomBackoff>>;
  /** The most a message's `x-retry-policy` may ask for. */
  overrideCeilings: { maxAttempts: number; deadlineSeconds: number | undefined; minDelayMs: number };
}

/** A publisher's override never retries sooner than this: a 0 ms fixed backoff would be a loop against the dependency. */
const MIN_OVERRIDE_DELAY_MS = 1000;

/** No jitter: what a custom strategy gets unless its type sets one, since its answer is the delay. */
const NO_JITTER: Jitter = { type: 'none' };

const seconds = (n: number) => n * 1000;

/**
 * The seed's error types and numbers: base and maximum per type, multiplier 3. What we
 * changed (the cap order, the jitter kind, the attempt budget) is argued from the herd
 * benchmark in docs/retry-policy.md.
 */
export const SHIPPED_PRESET = {
  maxAttempts: 20,
  deadlineSeconds: 24 * 60 * 60,
  maxDelayMs: seconds(60),
  // Chosen from the herd benchmark (docs/retry-policy.md): every delay is uniform in
  // [0.4 d, d]. Fewer calls than full jitter, and a lower peak after an outage than equal.
  jitter: { type: 'proportional', fraction: 0.6 },
  hopCeilingSeconds: Bounds.maxSqsDelaySeconds,
  types: {
    [ErrorType.RATE_LIMIT]: { backoff: { type: 'exponential', baseMs: seconds(60), multiplier: 3 }, maxDelayMs: seconds(300) },
    [ErrorType.QUOTA_EXCEEDED]: { backoff: { type: 'exponential', baseMs: seconds(120), multiplier: 3 }, maxDelayMs: seconds(600) },
    [ErrorType.TEMPORARY]: { backoff: { type: 'exponential', baseMs: seconds(2), multiplier: 3 }, maxDelayMs: seconds(60) },
    [ErrorType.DEFAULT]: { backoff: { type: 'exponential', baseMs: seconds(2), multiplier: 3 }, maxDelayMs: seconds(60) },
  },
} as const satisfies RetryPolicyJson;

/** Validates RETRY_POLICY-shaped JSON, naming the first offending path. */
export function parseRetryPolicyJson(value: unknown): RetryPolicyJson {
  return check(jsonPolicySchema, value) as RetryPolicyJson;
}

/**
 * Merges a policy over the shipped preset and validates it. Types merge field by field,
 * so `{ "types": { "RATE_LIMIT": { "maxDelayMs": 120000 } } }` keeps the preset's backoff.
 */
export function resolveRetryPolicy(input: RetryPolicyInput = {}): ResolvedRetryPolicy {
  const { classifier, strategies = {}, ...rest } = input;
  for (const [name, compute] of Object.entries(strategies)) {
    if (typeof compute !== 'function') throw new RetryPolicyConfigError(`strategies.${name}`, 'must be a function (attempt, failure, context) => delay');
  }
  const parsed = check(codePolicySchema, rest);
  const defaultJitter = parsed.jitter ?? (jitterSchema.parse(SHIPPED_PRESET.jitter) as Jitter);
  const defaultMax = parsed.maxDelayMs ?? SHIPPED_PRESET.maxDelayMs;
  const presetTypes = check(z.record(z.string(), z.object({ backoff: builtInBackoffSchema, maxDelayMs: delayMs })), SHIPPED_PRESET.types);
  const typeNames = new Set([...Object.keys(presetTypes), ...Object.keys(parsed.types ?? {})]);
  const types: Record<string, ErrorTypePolicy> = {};
  for (const name of typeNames) {
    const preset = presetTypes[name];
    const own = parsed.types?.[name];
    const written = own?.backoff ?? preset?.backoff;
    if (!written) throw new RetryPolicyConfigError(`types.${name}.backoff`, 'a new error type needs a backoff strategy');
    const backoff = resolveBackoff(written, strategies, `types.${name}.backoff.name`);
    types[name] = {
      backoff,
      // A type's own maximum wins; the global cap only fills in for types without one.
      maxDelayMs: own?.maxDelayMs ?? preset?.maxDelayMs ?? defaultMax,
      // A custom strategy's answer is used as it is (BullMQ's are exact), unless the type itself asks for jitter.
      jitter: own?.jitter ?? (backoff.type === 'custom' ? NO_JITTER : defaultJitter),
    };
  }
  const maxAttempts = parsed.maxAttempts ?? SHIPPED_PRESET.maxAttempts;
  const deadlineSeconds = parsed.deadlineSeconds === null ? undefined : (parsed.deadlineSeconds ?? SHIPPED_PRESET.deadlineSeconds);
  return {
    maxAttempts,
    deadlineSeconds,
    overrideCeilings: {
      maxAttempts: parsed.overrideCeilings?.maxAttempts ?? maxAttempts,
      deadlineSeconds: parsed.overrideCeilings?.deadlineSeconds ?? deadlineSeconds,
      minDelayMs: parsed.overrideCeilings?.minDelayMs ?? MIN_OVERRIDE_DELAY_MS,
    },
    hopCeilingSeconds: parsed.hopCeilingSeconds ?? SHIPPED_PRESET.hopCeilingSeconds,
    types,
    classifier: { ...(parsed.codeBugErrors === undefined ? {} : { codeBugErrors: parsed.codeBugErrors }), ...classifier },
    strategies,
  };
}

/** A named custom strategy becomes its registered function; an unknown name is a configuration error. */
export function resolveBackoff(backoff: Backoff | NamedCustomBackoff, strategies: Readonly<Record<string, CustomBackoff>>, path: string): Backoff {
  if (backoff.type !== 'custom' || !('name' in backoff)) return backoff;
  const compute = strategies[backoff.name];
  if (!compute) {
    const known = Object.keys(strategies);
    throw new RetryPolicyConfigError(
      path,
      `no custom strategy is registered as ${JSON.stringify(backoff.name)} ` +
        `(${known.length ? `known: ${known.join(', ')}` : "register one in the policy's strategies"})`,
    );
  }
  return { type: 'custom', compute };
}

function check<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return validateWith(schema, value, (path, problem, cause) => new RetryPolicyConfigError(path, problem, { cause }));
}
