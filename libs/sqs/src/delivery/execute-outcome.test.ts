import { RetryStateSigner } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage, SqsBatchClient } from '../sqs-io/batch-client.js';
import type { EntryOutcome } from '../sqs-io/batcher.js';
import { decodeMessage, type DecodedMessage } from '../message/decode.js';
import type { EngineEvents } from '../events/engine-events.js';
import { EventStream } from '../events/event-stream.js';
import type { VisibilityHeartbeat } from './heartbeat.js';
import { silentLogger } from '../events/logger.js';
import { UnusedReceives } from './unused-receives.js';
import { UnfinishedSettlements } from './unfinished.js';
import { OutcomeExecutor, type Acknowledge } from './execute-outcome.js';
import type { DeadLetterOutcome, HideOutcome, Outcome } from './outcome.js';

const NOW = Date.UTC(2026, 10, 28, 12);
const QUEUE = 'http://127.0.0.1:1/000000000000/jobs';
const DLQ = 'http://127.0.0.1:1/000000000000/jobs-dlq';
const signer = new RetryStateSigner(['e'.repeat(32)]);

/** Every write the executor asks of SQS, in order; `failing` names the actions that answer with a failure. */
function recordingBatch(failing: ReadonlySet<string> = new Set()) {
  const calls: Array<{ action: string; queueUrl: string; receiptHandle?: string; message?: OutgoingMessage; seconds?: number }> = [];
  const answer = (action: string): Promise<EntryOutcome> =>
    Promise.resolve(failing.has(action) ? { ok: false, code: 'InternalError', message: `${action} failed` } : { ok: true, messageId: `sent-${calls.length}` });
  const batch = {
    delete: (queueUrl: string, receiptHandle: string) => (calls.push({ action: 'delete', queueUrl, receiptHandle }), answer('delete')),
    send: (queueUrl: string, message: OutgoingMessage) => (calls.push({ action: 'send', queueUrl, message }), answer('send')),
    changeVisibility: (queueUrl: string, receiptHandle: string, seconds: number) => (
      calls.push({ action: 'visibility', queueUrl, receiptHandle, seconds }),
      answer('visibility')
    ),
  };
  return { calls, batch: batch as unknown as SqsBatchClient };
}

function executor(options: { acknowledge?: Acknowledge; failing?: Set<string>; deadLetterQueueUrl?: string; draining?: AbortSignal } = {}) {
  const { calls, batch } = recordingBatch(options.failing);
  const events = new EventStream<EngineEvents>(silentLogger);
  const settled: Array<EngineEvents['settled']['outcome']> = [];
  const failed: Array<EngineEvents['settleFailed']['step']> = [];
  events.on('settled', (event) => settled.push(event.outcome));
  events.on('settleFailed', (event) => failed.push(event.step));
  const untracked: string[] = [];
  const heartbeat = { untrack: (handle: string) => void untracked.push(handle) } as unknown as VisibilityHeartbeat;
  const unusedReceives = new UnusedReceives();
  const run = new OutcomeExecutor({
    options: { queueUrl: QUEUE, deadLetterQueueUrl: options.deadLetterQueueUrl ?? DLQ, retryStateSigner: signer, now: () => NOW },
    acknowledge: options.acknowledge ?? 'delete',
    deadLetterMaximumMessageSize: 1_048_576,
    batch,
    heartbeat,
    unusedReceives,
    unfinished: new UnfinishedSettlements(),
    events,
    draining: options.draining ?? new AbortController().signal,
  });
  return { run, calls, settled, failed, untracked, unusedReceives };
}

function message(groupId?: string): DecodedMessage {
  const raw = {
    MessageId: 'm1',
    ReceiptHandle: 'r1',
    Body: '{"id":1}',
    Attributes: { ApproximateReceiveCount: '1', ...(groupId ? { MessageGroupId: groupId } : {}) },
  };
  return decodeMessage(raw, NOW, { signer }).message;
}

const DEAD: DeadLetterOutcome = { kind: 'dead-letter', reason: 'non-retryable', errorType: 'HTTP_4XX', error: '400 from the API' };
const HIDE: HideOutcome = {
  kind: 'hide',
  seconds: 30,
  wait: { kind: 'retry', decision: { action: 'hop', delaySeconds: 30, errorType: 'TIMEOUT', error: 'timed out', state: message().state } },
};

describe('OutcomeExecutor', () => {
  it('acknowledges a success by deleting it, after the heartbeat stopped', async () => {
    const { run, calls, settled, untracked } = executor();
    expect(await run.execute(message(), { kind: 'ack' })).toBe('gone');
    expect(untracked).toEqual(['r1']);
    expect(calls).toEqual([{ action: 'delete', queueUrl: QUEUE, receiptHandle: 'r1' }]);
    expect(settled).toEqual([{ kind: 'deleted' }]);
  });

  it('acknowledges by reporting, with no delete, where the receiver deletes (Lambda)', async () => {
    const { run, calls, settled } = executor({ acknowledge: 'report' });
    expect(await run.execute(message(), { kind: 'ack' })).toBe('gone');
    expect(calls).toEqual([]);
    expect(settled).toEqual([{ kind: 'deleted' }]);
  });

  it('sends a dead letter with its reason before it deletes the original, and keeps the original when the send fails', async () => {
    const sent = executor();
    expect(await sent.run.execute(message(), DEAD)).toBe('gone');
    expect(sent.calls.map((c) => c.action)).toEqual(['send', 'delete']);
    expect(sent.calls[0]!.queueUrl).toBe(DLQ);
    expect(JSON.parse(sent.calls[0]!.message!.attributes['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', errorType: 'HTTP_4XX' });

    const refused = executor({ failing: new Set(['send']) });
    expect(await refused.run.execute(message(), DEAD)).toBe('stays');
    expect(refused.calls.map((c) => c.action)).toEqual(['send']);
    expect(refused.failed).toEqual(['send-dead-letter']);
    expect(refused.settled).toEqual([]);
  });

  it('keeps a FIFO dead letter in its group, with the message id as its deduplication id', async () => {
    const { run, calls } = executor({ deadLetterQueueUrl: `${DLQ}.fifo` });
    await run.execute(message('orders-7'), DEAD);
    expect(calls[0]!.message).toMatchObject({ groupId: 'orders-7', deduplicationId: 'm1' });
  });

  it('falls back to what the decision named when a retry copy cannot be sent, and deletes nothing', async () => {
    const { run, calls, settled, failed } = executor({ failing: new Set(['send']) });
    const copy: Outcome = { kind: 'copy', wait: HIDE.wait, attributes: {}, ifSendFails: HIDE };
    expect(await run.execute(message(), copy)).toBe('stays');
    expect(calls.map((c) => [c.action, c.seconds])).toEqual([
      ['send', undefined],
      ['visibility', 30],
    ]);
    expect(failed).toEqual(['send-copy']);
    expect(settled).toMatchObject([{ kind: 'retry', transport: 'visibility', delaySeconds: 30 }]);
  });

  it('releases a message unrun at once, and remembers that receive as no attempt', async () => {
    const { run, calls, settled, unusedReceives } = executor();
    expect(await run.execute({ messageId: 'm1', receiptHandle: 'r1' }, { kind: 'release' })).toBe('stays');
    expect(calls).toEqual([{ action: 'visibility', queueUrl: QUEUE, receiptHandle: 'r1', seconds: 0 }]);
    expect(settled).toEqual([{ kind: 'released' }]);
    expect(unusedReceives.of('m1')).toBe(1);
  });

  it('remembers a released receive as no attempt when SQS refuses the release too: it comes back at its visibility timeout, that receive in its count', async () => {
    const { run, unusedReceives } = executor({ failing: new Set(['visibility']) });
    await run.execute({ messageId: 'm1', receiptHandle: 'r1' }, { kind: 'release' });
    expect(unusedReceives.of('m1')).toBe(1);
  });

  it('spends a wait in place with no SQS call, then the message carries the attempt it waited for; draining ends it early', async () => {
    const { run, calls, settled, unusedReceives } = executor();
    const held = message();
    const next = { ...held.state, attempt: 2 };
    const inPlace = {
      kind: 'in-place' as const,
      seconds: 0,
      ifStopped: HIDE,
      wait: { kind: 'retry' as const, decision: { ...HIDE.wait.decision, state: next } },
    };
    expect(await run.waitInPlace(held, inPlace)).toBe(true);
    expect(calls).toEqual([]);
    expect(settled).toMatchObject([{ kind: 'retry', transport: 'in-place', nextAttempt: 2 }]);
    expect(held.handlerMessage.attempt).toBe(2);
    expect(unusedReceives.of('m1')).toBe(-1);

    const draining = new AbortController();
    draining.abort();
    const stopped = executor({ draining: draining.signal });
    expect(await stopped.run.waitInPlace(message(), { ...inPlace, seconds: 60 })).toBe(false);
  });
});
