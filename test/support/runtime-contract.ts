import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { NonRetryableError, RetryableError, createRetryPolicy, type RetryPolicy } from '@requeue/retry';
import type { MessageHandler } from '@requeue/sqs';
import { z } from 'zod';

/** What each job of the corpus does when it runs. */
export const job = z.object({ id: z.string(), behave: z.enum(['ok', 'flaky', 'permanent', 'exhausted', 'bug']) });
export type Job = z.output<typeof job>;

/** The corpus: one job of each behaviour, and a body the schema rejects. */
export const CORPUS: Array<{ id: string; body: string }> = [
  ...(['ok', 'flaky', 'permanent', 'exhausted', 'bug'] as const).map((behave) => ({ id: behave, body: JSON.stringify({ id: behave, behave }) })),
  { id: 'invalid', body: JSON.stringify({ id: 'invalid', behave: 42 }) },
];

/** How every job of the corpus must end, in either runtime: the attempts its handler saw, and where it went. */
export const EXPECTED: Record<string, { attempts: number[]; end: string }> = {
  ok: { attempts: [1], end: 'succeeded' },
  flaky: { attempts: [1, 2], end: 'succeeded' },
  permanent: { attempts: [1], end: 'dead-letter non-retryable PERMANENT' },
  exhausted: { attempts: [1, 2, 3], end: 'dead-letter max-attempts TEMPORARY' },
  bug: { attempts: [1], end: 'dead-letter handler-bug HANDLER_BUG' },
  invalid: { attempts: [], end: 'dead-letter non-retryable VALIDATION' },
};

/** Three attempts, no wait between them: the outcomes, not the delays, are what both runtimes must share. */
export function contractPolicy(): RetryPolicy {
  return createRetryPolicy({ maxAttempts: 3, jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } });
}

/** The corpus's handler, recording each run's attempt per job. */
export function contractHandler(runs: Map<string, number[]>, succeeded: Set<string>): MessageHandler<Job> {
  return async (message) => {
    const { id, behave } = message.body;
    runs.set(id, [...(runs.get(id) ?? []), message.attempt]);
    if (behave === 'flaky' && message.attempt === 1) throw new RetryableError('first call timed out', { errorType: 'TEMPORARY' });
    if (behave === 'exhausted') throw new RetryableError('still down', { errorType: 'TEMPORARY' });
    if (behave === 'permanent') throw new NonRetryableError('rejected for good');
    if (behave === 'bug') throw new TypeError("Cannot read properties of undefined (reading 'total')");
    succeeded.add(id);
  };
}

/** Where each job ended: succeeded, or its dead letter's reason and error type. */
export function endings(
  succeeded: ReadonlySet<string>,
  deadLetters: Array<{ Body?: string; MessageAttributes?: Record<string, MessageAttributeValue> }>,
): Record<string, string> {
  const ends: Record<string, string> = {};
  for (const id of succeeded) ends[id] = 'succeeded';
  for (const letter of deadLetters) {
    const record = JSON.parse(letter.MessageAttributes?.['x-dead-letter']?.StringValue ?? '{}') as { reason?: string; errorType?: string };
    ends[(JSON.parse(letter.Body!) as { id: string }).id] = `dead-letter ${record.reason} ${record.errorType}`;
  }
  return ends;
}
