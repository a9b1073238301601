import type { SQSClient } from '@aws-sdk/client-sqs';
import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { seededRandom } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage, SqsBatchClient } from '../sqs-io/batch-client.js';
import type { BodySchema } from '../message/body-schema.js';
import { createDelivery, type DeliveryShared } from './create-delivery.js';
import { Arrival } from '../message/arrival.js';
import type { EngineEvents } from '../events/engine-events.js';
import { EventStream } from '../events/event-stream.js';
import { silentLogger } from '../events/logger.js';
import { noMetrics } from '../events/metrics.js';
import { resolveWorkerOptions, type MessageHandler } from '../options.js';
import type { QueueFacts } from '../sqs-io/queue-facts.js';
import { UnusedReceives } from './unused-receives.js';
import { UnfinishedSettlements } from './unfinished.js';

// The processor with the real decision and executor, SQS's writes recorded: the stages in
// order (validate, gate, claim, run, decide, execute) for one message at a time.
const NOW = Date.UTC(2026, 10, 28, 12);
const QUEUE = 'http://127.0.0.1:1/000000000000/jobs';
const DLQ = 'http://127.0.0.1:1/000000000000/jobs-dlq';
const FACTS: QueueFacts = {
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: undefined,
  fifo: false,
  retryInPlaceSeconds: 0,
  deferInPlaceSeconds: 0,
  maximumMessageSize: 1_048_576,
  deadLetterMaximumMessageSize: 1_048_576,
};

function pipeline(handler: MessageHandler, schema?: BodySchema<unknown>, refuse: Set<string> = new Set()) {
  const writes: Array<{ action: string; queueUrl: string; message?: OutgoingMessage }> = [];
  // A refused write fails once, as SQS does when the SDK's own tries are spent.
  const answer = (action: string) => Promise.resolve(refuse.delete(action) ? { ok: false, code: 'InternalError', message: `${action} refused` } : { ok: true });
  const batch = {
    delete: (queueUrl: string) => (writes.push({ action: 'delete', queueUrl }), answer('delete')),
    send: (queueUrl: string, message: OutgoingMessage) => (writes.push({ action: 'send', queueUrl, message }), answer('send')),
    changeVisibility: (queueUrl: string) => (writes.push({ action: 'visibility', queueUrl }), Promise.resolve({ ok: true })),
  } as unknown as SqsBatchClient;
  const options = resolveWorkerOptions(
    {
      sqs: {} as SQSClient,
      queueUrl: QUEUE,
      deadLetterQueueUrl: DLQ,
      handler,
      ...(schema ? { schema } : {}),
      retryPolicy: createRetryPolicy({ maxAttempts: 3 }),
      backpressure: false,
      tracing: false,
      retryStateKeys: ['p'.repeat(32)],
      now: () => NOW,
      random: seededRandom(3),
    },
    { logger: silentLogger, metrics: noMetrics },
  );
  const shared: DeliveryShared = {
    batch,
    events: new EventStream<EngineEvents>(silentLogger),
    unusedReceives: new UnusedReceives(),
    unfinished: new UnfinishedSettlements(),
    queueName: 'jobs',
  };
  const never = new AbortController().signal;
  const { processor } = createDelivery(options, FACTS, shared, {
    acknowledge: 'delete',
    idempotency: undefined,
    dependencies: undefined,
    stop: never,
    draining: never,
  });
  const process = (body: string, attributes: Record<string, { DataType: string; StringValue: string }> = {}, receiveCount = 1) =>
    processor.process(
      new Arrival({
        MessageId: 'm1',
        ReceiptHandle: 'r1',
        Body: body,
        Attributes: { ApproximateReceiveCount: String(receiveCount) },
        MessageAttributes: attributes,
      }),
      NOW,
    );
  return { process, writes };
}

const deadLetterOf = (write: { message?: OutgoingMessage }) => JSON.parse(write.message!.attributes['x-dead-letter']!.StringValue!) as Record<string, unknown>;

describe('MessageProcessor', () => {
  it('runs the handler with the parsed body once, then deletes the message', async () => {
    const bodies: unknown[] = [];
    const { process, writes } = pipeline(async (message) => void bodies.push(message.body));
    expect(await process('{"order":7}')).toBe('gone');
    expect(bodies).toEqual([{ order: 7 }]);
    expect(writes.map((w) => w.action)).toEqual(['delete']);
  });

  it('deletes a success whose delete SQS refused when it comes back, without running the handler again', async () => {
    let runs = 0;
    const { process, writes } = pipeline(async () => void runs++, undefined, new Set(['delete']));
    expect(await process('{"order":7}')).toBe('stays');
    expect(await process('{"order":7}', {}, 2)).toBe('gone');
    expect(runs).toBe(1);
    expect(writes.map((w) => w.action)).toEqual(['delete', 'delete']);
  });

  it('dead-letters a message whose dead letter SQS refused when it comes back, with the same reason, without running it again', async () => {
    let runs = 0;
    const failing = async () => {
      runs++;
      throw new NonRetryableError('card declined', { errorType: 'HTTP_4XX' });
    };
    const { process, writes } = pipeline(failing, undefined, new Set(['send']));
    expect(await process('{"order":7}')).toBe('stays');
    expect(await process('{"order":7}', {}, 2)).toBe('gone');
    expect(runs).toBe(1);
    expect(writes.map((w) => [w.action, w.queueUrl])).toEqual([
      ['send', DLQ],
      ['send', DLQ],
      ['delete', QUEUE],
    ]);
    expect(deadLetterOf(writes[1]!)).toMatchObject({ reason: 'non-retryable', errorType: 'HTTP_4XX', error: 'card declined', attempts: 1 });
  });

  it('dead-letters a body the schema refuses without running the handler', async () => {
    let ran = false;
    const schema: BodySchema<unknown> = {
      '~standard': { version: 1, vendor: 'test', validate: () => ({ issues: [{ message: 'order: expected a number' }] }) },
    };
    const { process, writes } = pipeline(async () => void (ran = true), schema);
    expect(await process('{"order":"seven"}')).toBe('gone');
    expect(ran).toBe(false);
    expect(writes.map((w) => [w.action, w.queueUrl])).toEqual([
      ['send', DLQ],
      ['delete', QUEUE],
    ]);
    expect(deadLetterOf(writes[0]!)).toMatchObject({ reason: 'non-retryable', errorType: 'VALIDATION' });
  });

  it('sends a retryable failure back as a delayed copy carrying its next attempt, then deletes the original', async () => {
    const { process, writes } = pipeline(async () => {
      throw new RetryableError('upstream timed out', { errorType: 'TIMEOUT' });
    });
    expect(await process('{"order":7}')).toBe('gone');
    expect(writes.map((w) => [w.action, w.queueUrl])).toEqual([
      ['send', QUEUE],
      ['delete', QUEUE],
    ]);
    expect(writes[0]!.message!.delaySeconds).toBeGreaterThan(0);
    expect(writes[0]!.message!.attributes['x-retry']).toBeDefined();
  });

  it('dead-letters a non-retryable failure on its first attempt with the handler error', async () => {
    const { process, writes } = pipeline(async () => {
      throw new NonRetryableError('card declined', { errorType: 'HTTP_4XX' });
    });
    await process('{"order":7}');
    expect(deadLetterOf(writes[0]!)).toMatchObject({ reason: 'non-retryable', errorType: 'HTTP_4XX', error: 'card declined', attempts: 1 });
  });

  it('dead-letters a forged x-retry as invalid-retry-state without running the handler', async () => {
    let ran = false;
    const { process, writes } = pipeline(async () => void (ran = true));
    await process('{"order":7}', { 'x-retry': { DataType: 'String', StringValue: 'forged' } });
    expect(ran).toBe(false);
    expect(deadLetterOf(writes[0]!)).toMatchObject({ reason: 'invalid-retry-state' });
  });
});
