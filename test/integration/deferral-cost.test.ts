import { SQSClient } from '@aws-sdk/client-sqs';
import { RetryableError } from '@requeue/retry';
import { describe, expect, it } from 'vitest';
import { eventually, TEST_REGION } from '../support/emulator.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** An SQS client that counts the calls it makes, by operation. */
function countingClient(endpoint: string) {
  const calls = new Map<string, number>();
  const sqs = new SQSClient({ endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  sqs.middlewareStack.add(
    (next, context) => (args) => {
      calls.set(context.commandName ?? '?', (calls.get(context.commandName ?? '?') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  return { sqs, calls };
}

describe('what a deferral costs in SQS calls (the emulator)', () => {
  it("spends a dependency's Retry-After in the worker: no copy, delete or receive for the wait, and the other messages keep running", async () => {
    const queues = await suite.emulator.createQueues();
    const { sqs, calls } = countingClient(suite.emulator.endpoint);
    const tries = new Map<string, number>();
    const done = new Set<string>();
    // 12 of 135 messages are answered 429 with Retry-After: 3 three times each.
    await suite.engine(
      queues,
      async (message) => {
        const id = message.rawBody;
        const tried = (tries.get(id) ?? 0) + 1;
        tries.set(id, tried);
        if (id.startsWith('limited') && tried <= 3) throw new RetryableError('429 Too Many Requests', { errorType: 'RATE_LIMIT', retryAfterMs: 3000 });
        done.add(id);
      },
      {},
      { sqs, maxInFlight: 10, backpressure: {} },
    );
    const ids = [...Array.from({ length: 12 }, (_, i) => `limited-${i}`), ...Array.from({ length: 123 }, (_, i) => `ok-${i}`)];
    await sendAll(
      suite.emulator.sqs,
      queues.queueUrl,
      ids.map((body) => ({ body })),
    );
    const startedAt = Date.now();
    await eventually(() => (done.size === ids.length ? true : undefined), 60_000, 'every message to succeed');
    const seconds = (Date.now() - startedAt) / 1000;
    const perMessage = (name: string) => (calls.get(name) ?? 0) / ids.length;
    console.log(`deferral cost: ${JSON.stringify(Object.fromEntries(calls))} for ${ids.length} messages in ${seconds.toFixed(1)} s`);
    // Each 429 was deferred in the worker: nothing was copied back to the queue.
    expect(calls.get('SendMessageBatchCommand') ?? 0).toBe(0);
    expect(perMessage('DeleteMessageBatchCommand')).toBeLessThanOrEqual(1);
    // Three Retry-After waits of 3 s, with the rest running meanwhile: well under a minute.
    expect(seconds).toBeLessThan(30);
  }, 90_000);
});
