import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export interface DemoMessage {
  id: string;
  /** What it shows, for the report. */
  kind: string;
  body: string;
  attributes?: Record<string, MessageAttributeValue>;
  /** The FIFO message group, with `--fifo`: four customers, their messages interleaved. */
  group: string;
  /** 'succeeded', or the DLQ reason it must end with. */
  expected: string;
}

const FIFO_GROUPS = 4;

const policy = (override: object): Record<string, MessageAttributeValue> => ({
  'x-retry-policy': { DataType: 'String', StringValue: JSON.stringify(override) },
});

/**
 * A realistic mix: mostly fine, some transient failures that clear on attempt 2 or 3, a
 * rate limit with Retry-After, a quota, and the four ways to the DLQ.
 */
export function demoWorkload(): DemoMessage[] {
  const messages: DemoMessage[] = [];
  const add = (count: number, kind: string, expected: string, simulate: (i: number) => object, attributes?: Record<string, MessageAttributeValue>) => {
    for (let i = 0; i < count; i++) {
      const id = `${kind}-${i + 1}`;
      const group = `customer-${(messages.length % FIFO_GROUPS) + 1}`;
      messages.push({ id, kind, expected, body: JSON.stringify({ id, simulate: simulate(i) }), attributes, group });
    }
  };
  add(14, 'ok', 'succeeded', () => ({ outcome: 'ok', durationMs: 50 }));
  add(8, 'transient', 'succeeded', (i) => ({ outcome: 'transient', failTimes: 1 + (i % 2), durationMs: 50 }));
  add(4, 'rate-limited', 'succeeded', () => ({ outcome: 'rate_limit', failTimes: 1, retryAfterMs: 2000 }));
  add(2, 'quota', 'succeeded', () => ({ outcome: 'quota', failTimes: 1 }));
  add(4, 'permanent', 'non-retryable', () => ({ outcome: 'permanent' }));
  add(2, 'unrecoverable', 'non-retryable', () => ({ outcome: 'unrecoverable' }));
  add(2, 'handler-bug', 'handler-bug', () => ({ outcome: 'throw_non_error' }));
  add(2, 'exhausted', 'max-attempts', () => ({ outcome: 'transient' }), policy({ maxAttempts: 3 }));
  add(2, 'deadline', 'deadline-exceeded', () => ({ outcome: 'transient' }), policy({ deadlineSeconds: 4 }));
  return messages;
}

/** Base delays of about a second, so the whole demo ends in seconds rather than hours. */
export const DEMO_RETRY_POLICY = {
  maxAttempts: 6,
  types: Object.fromEntries(
    ['TEMPORARY', 'RATE_LIMIT', 'QUOTA_EXCEEDED', 'DEFAULT'].map((type) => [
      type,
      { backoff: { type: 'exponential', baseMs: 1000, multiplier: 2 }, maxDelayMs: 4000 },
    ]),
  ),
};
