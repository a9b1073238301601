import { createRetryPolicy, parseRetryPolicyJson, RetryPolicyConfigError, type RetryPolicy } from '@requeue/retry';
import { z } from 'zod';
import { readJsonSetting } from '@requeue/sqs/env';

/** One queue the worker consumes, from WORKER_CONSUMERS. */
export interface ConsumerConfig {
  name: string;
  queueUrl: string;
  dlqUrl: string;
  handler: string;
  maxInFlight: number;
  retryPolicy: RetryPolicy;
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const entry = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z][\w-]{0,63}$/, 'must be 1-64 letters, digits, - or _, starting with a letter')
    .optional(),
  queueUrl: httpUrl,
  dlqUrl: httpUrl,
  handler: z.string().optional(),
  maxInFlight: z.number().int().min(1).max(10_000).optional(),
  retryPolicy: z.unknown().optional(),
});
const list = z.array(entry).min(1, 'must list at least one consumer').max(50, 'lists at most 50 consumers');

export interface ConsumerDefaults {
  handler: string;
  maxInFlight: number;
  retryPolicy: RetryPolicy;
  handlers: readonly string[];
}

/**
 * WORKER_CONSUMERS: a JSON array (inline or in a file) of `{ name?, queueUrl, dlqUrl,
 * handler?, maxInFlight?, retryPolicy? }`. Unset fields take WORKER_HANDLER,
 * WORKER_MAX_IN_FLIGHT and RETRY_POLICY; a consumer's retryPolicy merges over the preset.
 * Undefined when the variable is unset: the single-queue variables apply.
 */
export function loadConsumers(
  raw: string | undefined,
  defaults: ConsumerDefaults,
  fail: (variable: string, problem: string, cause?: unknown) => never,
): ConsumerConfig[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const { json } = readJsonSetting('WORKER_CONSUMERS', raw);
  const parsed = list.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail(`WORKER_CONSUMERS${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`, issue.message);
  }
  const names = new Set<string>();
  return parsed.data.map((consumer, index) => {
    const at = `WORKER_CONSUMERS[${index}]`;
    const handler = consumer.handler ?? defaults.handler;
    if (!defaults.handlers.includes(handler)) fail(`${at}.handler`, `must be one of ${defaults.handlers.join(', ')}, got ${JSON.stringify(handler)}`);
    const name = consumer.name ?? handler;
    if (names.has(name)) fail(`${at}.name`, `"${name}" is taken by an earlier consumer; give each consumer its own name`);
    names.add(name);
    return {
      name,
      queueUrl: consumer.queueUrl,
      dlqUrl: consumer.dlqUrl,
      handler,
      maxInFlight: consumer.maxInFlight ?? defaults.maxInFlight,
      retryPolicy: policyOf(consumer.retryPolicy, defaults.retryPolicy, `${at}.retryPolicy`, fail),
    };
  });
}

function policyOf(json: unknown, fallback: RetryPolicy, variable: string, fail: (variable: string, problem: string, cause?: unknown) => never): RetryPolicy {
  if (json === undefined) return fallback;
  try {
    return createRetryPolicy(parseRetryPolicyJson(json));
  } catch (cause) {
    if (cause instanceof RetryPolicyConfigError) return fail(variable, cause.message, cause);
    throw cause;
  }
}
