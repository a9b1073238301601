import { encodeDeadLetterRecord, RetryStateSigner, type DeadLetterReason } from '@requeue/retry/engine';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { messageDigest } from '@requeue/sqs/dead-letters';
import { sendAll, type Outgoing } from './publish.js';

/** The workers' x-retry key in the dead-letter tests: the CLI is given it too. */
export const CORPUS_RETRY_KEY = 'dead-letter-corpus-key-0123456789abcdef';

/** Five causes, each with ids, numbers and URLs that vary from one dead letter to the next. */
export const CORPUS_CAUSES: Array<{ count: number; reason?: DeadLetterReason; errorType?: string; error?: (n: number) => string }> = [
  {
    count: 3_000,
    reason: 'max-attempts',
    errorType: 'HTTP_5XX',
    error: (n) => `POST https://hooks.example.com/orders/${n}: 503 Service Unavailable after ${(n % 7) + 1} ms`,
  },
  {
    count: 2_500,
    reason: 'non-retryable',
    errorType: 'HTTP_4XX',
    error: (n) => `POST https://api.pay.example/v1/charges/ch_${n}: 400 (request ${n.toString(16).padStart(6, '0')}9f3a2b)`,
  },
  { count: 2_000, reason: 'max-attempts', errorType: 'TIMEOUT', error: (n) => `handler timed out after ${30_000 + n} ms` },
  {
    count: 1_500,
    reason: 'non-retryable',
    errorType: 'VALIDATION',
    error: (n) => `body failed validation: items.${n % 5}.amount: Expected number, received string`,
  },
  // Moved by SQS's own redrive: no x-dead-letter record.
  { count: 1_000 },
];

/**
 * 10,000 dead letters of `CORPUS_CAUSES`, bodies `{ cause, n }`, or `counts[c]` of cause
 * `c` where given. Each the worker wrote carries its `x-dead-letter` and, as the worker's
 * dead letters do, its signed `x-retry` (attempt 3, original id `m-<cause>-<n>`).
 */
export function deadLetterCorpus(sourceQueue: string, counts: readonly number[] = CORPUS_CAUSES.map((cause) => cause.count)): Outgoing[] {
  const now = Date.now();
  const signer = new RetryStateSigner([CORPUS_RETRY_KEY]);
  return CORPUS_CAUSES.flatMap((cause, c) =>
    Array.from({ length: counts[c] ?? cause.count }, (_, n) => {
      const body = JSON.stringify({ cause: c, n });
      if (!cause.reason) return { body };
      const originalMessageId = `m-${c}-${n}`;
      const record = {
        reason: cause.reason,
        errorType: cause.errorType!,
        error: cause.error!(n),
        attempts: 3,
        firstReceivedAt: now - 60_000,
        deadLetteredAt: now - n,
        sourceQueue,
        originalMessageId,
      };
      const state = signer.sign({ v: 1, attempt: 3, firstReceivedAt: now - 60_000, originalMessageId }, messageDigest(body, {}));
      return {
        body,
        attributes: {
          'x-dead-letter': { DataType: 'String', StringValue: encodeDeadLetterRecord(record) },
          'x-retry': { DataType: 'String', StringValue: state },
        },
      };
    }),
  );
}

/** Sends dead letters to a DLQ ten batches at a time: 10,000 load in seconds, not a minute. */
export async function loadDeadLetters(sqs: SQSClient, dlqUrl: string, letters: readonly Outgoing[]): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(letters.length / 100) }, (_, i) => letters.slice(i * 100, i * 100 + 100));
  await Promise.all(chunks.map((chunk) => sendAll(sqs, dlqUrl, chunk)));
}
