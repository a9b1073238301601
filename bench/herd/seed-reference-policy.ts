import type { Random } from '@requeue/retry/engine';

/**
 * The seed article's retry arithmetic, re-implemented exactly as it computes, for
 * comparison only. Its defects are kept on purpose: classification by message text,
 * 10% jitter added before the cap, the global 60 s cap overriding the per-type maxima,
 * Math.ceil, and 50 retries. This is the reference, not a policy anyone should ship.
 */
const SEED_TYPES = {
  RATE_LIMIT_EXCEEDED: { baseDelay: 60, maxDelay: 300 },
  TEMPORARY_ERROR: { baseDelay: 2, maxDelay: 60 },
  QUOTA_EXCEEDED: { baseDelay: 120, maxDelay: 600 },
  DEFAULT: { baseDelay: 2, maxDelay: 60 },
} as const;

const SEED_CONFIG = { maxRetries: 50, baseDelayMultiplier: 3, maxDelaySeconds: 60, jitterPercentage: 0.1 };

function seedClassify(message: string): keyof typeof SEED_TYPES {
  const text = message.toLowerCase();
  if (text.includes('rate limit') || text.includes('429')) return 'RATE_LIMIT_EXCEEDED';
  if (text.includes('quota exceeded') || text.includes('503')) return 'QUOTA_EXCEEDED';
  if (text.includes('timeout') || text.includes('temporary')) return 'TEMPORARY_ERROR';
  return 'DEFAULT';
}

/** Returns the seed's `DelaySeconds` for a failure after `retryCount` earlier retries, or undefined once it gives up. */
export function seedReferenceDelaySeconds(message: string, retryCount: number, rng: Random): number | undefined {
  if (retryCount >= SEED_CONFIG.maxRetries) return undefined;
  const config = SEED_TYPES[seedClassify(message)];
  const exponential = config.baseDelay * Math.pow(SEED_CONFIG.baseDelayMultiplier, retryCount);
  const jitter = rng() * (exponential * SEED_CONFIG.jitterPercentage);
  const maxDelay = Math.min(config.maxDelay, SEED_CONFIG.maxDelaySeconds);
  return Math.min(Math.ceil(Math.min(exponential + jitter, maxDelay)), 900);
}
