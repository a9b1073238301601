import { createRetryPolicy, type Classification } from '@requeue/retry';
import { enginePolicy, RetryStateSigner, seededRandom, type RetryState } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import { messageDigest } from '../message/message-digest.js';
import { decodeMessage, type DecodedMessage } from '../message/decode.js';
import { decideDelivery, decideGiveBack, STORE_DOWN_HOLD_SECONDS, type DeliveryFacts } from './decide-delivery.js';
import type { FinalVerdict } from './verdict.js';

// One test per row of docs/contracts.md, "Outcomes": the decision alone, no SQS.
const NOW = Date.UTC(2026, 10, 26, 12);
const signer = new RetryStateSigner(['d'.repeat(32)]);
const policy = enginePolicy(createRetryPolicy({ maxAttempts: 3, deadlineSeconds: 3600 }));
const TIMEOUT: Classification = { retryable: true, errorType: 'TIMEOUT', message: 'timed out' };

interface Delivery {
  state?: Partial<RetryState>;
  receiveCount?: number;
  /** User attributes on the message: ten leave no room for x-retry. */
  userAttributes?: number;
}

function delivered({ state, receiveCount = 1, userAttributes = 0 }: Delivery = {}): DecodedMessage {
  const attributes: Record<string, { DataType: string; StringValue: string }> = {};
  for (let i = 0; i < userAttributes; i++) attributes[`a${i}`] = { DataType: 'String', StringValue: 'v' };
  const digest = messageDigest('{"id":1}', attributes);
  if (state)
    attributes['x-retry'] = {
      DataType: 'String',
      StringValue: signer.sign({ v: 1, attempt: 1, firstReceivedAt: NOW - 1000, originalMessageId: 'orig', ...state }, digest),
    };
  const raw = {
    MessageId: 'm1',
    ReceiptHandle: 'r1',
    Body: '{"id":1}',
    Attributes: { ApproximateReceiveCount: String(receiveCount) },
    MessageAttributes: attributes,
  };
  return decodeMessage(raw, NOW, { signer }).message;
}

/** A queue's facts: in-place waits off and SQS's largest size unless said. */
function q(facts: Partial<DeliveryFacts['queue']> = {}): DeliveryFacts['queue'] {
  return { fifo: false, maxReceiveCount: undefined, retryInPlaceSeconds: 0, deferInPlaceSeconds: 0, maximumMessageSize: 1_048_576, ...facts };
}

function decide(verdict: FinalVerdict, delivery: Delivery = {}, queue: DeliveryFacts['queue'] = q()) {
  return decideDelivery({ message: delivered(delivery), verdict, policy, queue, signer, now: NOW, random: seededRandom(1) });
}

const FIFO = q({ fifo: true });

describe('decideDelivery: before the handler runs', () => {
  it('runs a message that has no notBefore, or whose notBefore is within a second', () => {
    const facts = {
      policy,
      queue: q({ fifo: false, maxReceiveCount: undefined, retryInPlaceSeconds: 0 }),
      signer,
      now: NOW,
      random: seededRandom(1),
      verdict: { kind: 'received' } as const,
    };
    expect(decideDelivery({ ...facts, message: delivered() })).toEqual({ kind: 'run' });
    expect(decideDelivery({ ...facts, message: delivered({ state: { attempt: 1, notBefore: NOW + 500 } }) })).toEqual({ kind: 'run' });
  });

  it('sends a message that arrived before its notBefore back for the rest, attempt unchanged', () => {
    const outcome = decideDelivery({
      message: delivered({ state: { attempt: 1, notBefore: NOW + 60_000 } }),
      verdict: { kind: 'received' },
      policy,
      queue: q({ fifo: false, maxReceiveCount: undefined, retryInPlaceSeconds: 0 }),
      signer,
      now: NOW,
      random: seededRandom(1),
    });
    expect(outcome).toMatchObject({ kind: 'copy', wait: { kind: 'deferred', cause: 'not-before', decision: { state: { attempt: 1 } } } });
    expect(outcome.kind === 'copy' && outcome.wait.decision.delaySeconds).toBeGreaterThanOrEqual(59);
  });

  it('dead-letters an undecodable message with the reason decode gave', () => {
    expect(decide({ kind: 'undecodable', reason: 'invalid-retry-state', errorType: 'INVALID_RETRY_STATE', error: 'bad' })).toEqual({
      kind: 'dead-letter',
      reason: 'invalid-retry-state',
      errorType: 'INVALID_RETRY_STATE',
      error: 'bad',
    });
  });

  it('dead-letters a body the schema rejects as non-retryable, and one whose validator threw as a handler bug', () => {
    expect(decide({ kind: 'invalid-body', invalid: true, error: 'e' })).toMatchObject({
      kind: 'dead-letter',
      reason: 'non-retryable',
      errorType: 'VALIDATION',
    });
    expect(decide({ kind: 'invalid-body', invalid: false, error: 'e' })).toMatchObject({
      kind: 'dead-letter',
      reason: 'handler-bug',
      errorType: 'HANDLER_BUG',
    });
  });

  it('releases a message whose gate closed for shutdown, or whose handler was aborted by it', () => {
    expect(decide({ kind: 'gate-stopped' })).toEqual({ kind: 'release' });
    expect(decide({ kind: 'stopped' })).toEqual({ kind: 'release' });
  });

  it('defers a message whose dependency is paused until it is due, without an attempt, keeping its last error', () => {
    const outcome = decide(
      { kind: 'gate-closed', untilMs: NOW + 20_000, cause: 'breaker-open', dependency: 'api' },
      { state: { attempt: 2, lastErrorType: 'HTTP_5XX', lastError: '503' } },
    );
    expect(outcome).toMatchObject({
      kind: 'copy',
      wait: { kind: 'deferred', cause: 'breaker-open', decision: { delaySeconds: 20, state: { attempt: 2 }, errorType: 'HTTP_5XX' } },
    });
  });

  it('dead-letters a deferral that would end past the deadline', () => {
    const outcome = decide(
      { kind: 'gate-closed', untilMs: NOW + 60_000, cause: 'rate-limited', dependency: 'api' },
      { state: { firstReceivedAt: NOW - 3_590_000 } },
    );
    expect(outcome).toMatchObject({ kind: 'dead-letter', reason: 'deadline-exceeded' });
  });
});

describe('decideDelivery: idempotency', () => {
  it('acknowledges a duplicate of a completed key, and defers one whose key is running elsewhere', () => {
    expect(decide({ kind: 'duplicate' })).toEqual({ kind: 'ack' });
    expect(decide({ kind: 'duplicate-in-progress', untilMs: NOW + 5000 })).toMatchObject({
      kind: 'copy',
      wait: { kind: 'deferred', cause: 'duplicate-in-progress' },
    });
  });

  it('dead-letters a reused or missing key as non-retryable', () => {
    expect(decide({ kind: 'key-unusable', errorType: 'IDEMPOTENCY_KEY_REUSED', error: 'e' })).toMatchObject({
      kind: 'dead-letter',
      reason: 'non-retryable',
      errorType: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(decide({ kind: 'key-unusable', errorType: 'IDEMPOTENCY_KEY_MISSING', error: 'e' })).toMatchObject({
      kind: 'dead-letter',
      errorType: 'IDEMPOTENCY_KEY_MISSING',
    });
  });

  it('holds a message back, unrun, while the store is unreachable', () => {
    expect(decide({ kind: 'store-unavailable', error: new Error('down') })).toEqual({ kind: 'hold-back', seconds: STORE_DOWN_HOLD_SECONDS });
  });
});

describe('decideDelivery: after the handler ran', () => {
  it('acknowledges a success', () => {
    expect(decide({ kind: 'succeeded' })).toEqual({ kind: 'ack' });
  });

  it('retries a retryable failure with budget left by a delayed copy carrying the next attempt, hidden instead if the send fails', () => {
    const outcome = decide({ kind: 'failed', failure: TIMEOUT });
    expect(outcome).toMatchObject({ kind: 'copy', wait: { kind: 'retry', decision: { action: 'retry', state: { attempt: 2, lastErrorType: 'TIMEOUT' } } } });
    if (outcome.kind !== 'copy') throw new Error('expected a copy');
    expect(outcome.attributes['x-retry']?.StringValue).toContain('"attempt":2');
    expect(outcome.ifSendFails).toEqual({ kind: 'hide', wait: outcome.wait, seconds: outcome.wait.decision.delaySeconds });
  });

  it('retries by visibility on a FIFO queue, and when a copy could not carry x-retry beside ten user attributes', () => {
    expect(decide({ kind: 'failed', failure: TIMEOUT }, {}, FIFO)).toMatchObject({ kind: 'hide', wait: { kind: 'retry' } });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { userAttributes: 10 })).toMatchObject({ kind: 'hide', wait: { kind: 'retry' } });
  });

  it('on a FIFO queue, spends a wait within the bound in place, where the maxReceiveCount rule does not apply; at shutdown, what the visibility transport would do', () => {
    const queue = q({ fifo: true, maxReceiveCount: 2, retryInPlaceSeconds: 43_200 });
    const fresh = decide({ kind: 'failed', failure: TIMEOUT }, {}, queue);
    expect(fresh).toMatchObject({ kind: 'in-place', wait: { kind: 'retry', decision: { state: { attempt: 2 } } }, ifStopped: { kind: 'hide' } });
    const seconds = fresh.kind === 'in-place' ? fresh.seconds : -1;
    expect(seconds).toBeGreaterThan(1);
    // Received twice already: a retry in place raises no receive count; handed back, it would be redriven.
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { receiveCount: 2 }, queue)).toMatchObject({
      kind: 'in-place',
      ifStopped: { kind: 'dead-letter', reason: 'max-attempts' },
    });
    expect(decide({ kind: 'gate-closed', untilMs: NOW + 5_000, cause: 'breaker-open', dependency: 'api' }, {}, queue)).toMatchObject({
      kind: 'in-place',
      seconds: 5,
      wait: { kind: 'deferred' },
    });
  });

  it('on a FIFO queue, waits in SQS past the bound, with in-place off, and before the message ran', () => {
    const fresh = decide({ kind: 'failed', failure: TIMEOUT }, {}, q({ fifo: true, maxReceiveCount: undefined, retryInPlaceSeconds: 43_200 }));
    const seconds = fresh.kind === 'in-place' ? fresh.seconds : 0;
    expect(decide({ kind: 'failed', failure: TIMEOUT }, {}, { fifo: true, maxReceiveCount: undefined, retryInPlaceSeconds: seconds - 1 })).toMatchObject({
      kind: 'hide',
      seconds,
    });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, {}, FIFO)).toMatchObject({ kind: 'hide', seconds });
    const early = decideDelivery({
      message: delivered({ state: { attempt: 1, notBefore: NOW + 5_000 } }),
      verdict: { kind: 'received' },
      policy,
      queue: q({ fifo: true, maxReceiveCount: undefined, retryInPlaceSeconds: 60 }),
      signer,
      now: NOW,
      random: seededRandom(1),
    });
    expect(early).toMatchObject({ kind: 'hide', wait: { cause: 'not-before' } });
  });

  it('dead-letters at the queue maxReceiveCount on the visibility transport, with max-attempts, rather than let SQS move it without a reason', () => {
    const atLimit = decide({ kind: 'failed', failure: TIMEOUT }, { receiveCount: 2 }, q({ fifo: true, maxReceiveCount: 2, retryInPlaceSeconds: 0 }));
    expect(atLimit).toMatchObject({ kind: 'dead-letter', reason: 'max-attempts', errorType: 'TIMEOUT' });
    const copyFallback = decide({ kind: 'failed', failure: TIMEOUT }, { receiveCount: 2 }, q({ fifo: false, maxReceiveCount: 2, retryInPlaceSeconds: 0 }));
    expect(copyFallback).toMatchObject({ kind: 'copy', ifSendFails: { kind: 'dead-letter', reason: 'max-attempts' } });
  });

  it('on a standard queue, spends a short deferral in the worker (no send, delete or receive), and copies a longer one and every retry', () => {
    const queue = q({ retryInPlaceSeconds: 60, deferInPlaceSeconds: 20 });
    const paused = (ms: number): FinalVerdict => ({ kind: 'gate-closed', untilMs: NOW + ms, cause: 'rate-limited', dependency: 'api' });
    expect(decide(paused(3_000), {}, queue)).toMatchObject({ kind: 'in-place', seconds: 3, wait: { kind: 'deferred', decision: { state: { attempt: 1 } } } });
    expect(decide(paused(30_000), {}, queue)).toMatchObject({ kind: 'copy', wait: { kind: 'deferred' } });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, {}, queue)).toMatchObject({ kind: 'copy', wait: { kind: 'retry' } });
  });

  it('never waits in place with no room left under the 12-hour bound of its receive: back to SQS, rather than decide again at once forever', () => {
    const lastSecond = NOW + 43_200_000 - 500;
    const facts = (fifo: boolean): DeliveryFacts => ({
      message: delivered(),
      verdict: { kind: 'gate-closed', untilMs: lastSecond + 800, cause: 'rate-limited', dependency: 'api' },
      policy: enginePolicy(createRetryPolicy({ maxAttempts: 3 })),
      queue: q({ fifo, retryInPlaceSeconds: 60, deferInPlaceSeconds: 20 }),
      signer,
      now: lastSecond,
      random: seededRandom(1),
    });
    expect(decideDelivery(facts(false))).toMatchObject({ kind: 'copy', wait: { kind: 'deferred' } });
    expect(decideDelivery(facts(true))).toMatchObject({ kind: 'hide', wait: { kind: 'deferred' } });
    // An hour into its receive, the same deferral is spent in the worker.
    expect(
      decideDelivery({ ...facts(false), now: NOW + 3_600_000, verdict: { ...facts(false).verdict, untilMs: NOW + 3_601_000 } as FinalVerdict }),
    ).toMatchObject({ kind: 'in-place' });
  });

  it('retries a message with no room for x-retry (10 attributes, or near the size limit) in place within the bound, by visibility past it', () => {
    const queue = q({ retryInPlaceSeconds: 60, maxReceiveCount: 5 });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { userAttributes: 10 }, queue)).toMatchObject({
      kind: 'in-place',
      wait: { kind: 'retry', decision: { state: { attempt: 2 } } },
      ifStopped: { kind: 'hide' },
    });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, {}, q({ retryInPlaceSeconds: 60, maximumMessageSize: 100 }))).toMatchObject({ kind: 'in-place' });
    const long = decide({ kind: 'gate-closed', untilMs: NOW + 600_000, cause: 'breaker-open', dependency: 'api' }, { userAttributes: 10 }, queue);
    expect(long).toMatchObject({ kind: 'hide', seconds: 600, wait: { kind: 'deferred' } });
  });

  it('never hands a deferral with no room to SQS at the receive limit: it waits in place, and only shutdown dead-letters it, with its reason', () => {
    const queue = q({ retryInPlaceSeconds: 60, maxReceiveCount: 2 });
    const deferral = decide(
      { kind: 'gate-closed', untilMs: NOW + 600_000, cause: 'breaker-open', dependency: 'api' },
      { userAttributes: 10, receiveCount: 2 },
      queue,
    );
    expect(deferral).toMatchObject({ kind: 'in-place', seconds: 600, ifStopped: { kind: 'dead-letter', reason: 'max-attempts' } });
    const retry = decide({ kind: 'failed', failure: TIMEOUT }, { userAttributes: 10, receiveCount: 2 }, q({ retryInPlaceSeconds: 0, maxReceiveCount: 2 }));
    expect(retry).toMatchObject({ kind: 'dead-letter', reason: 'max-attempts', error: expect.stringContaining('maxReceiveCount') });
  });

  it('defers a systemic failure the dependency confirms, without using an attempt, for at least its Retry-After', () => {
    const failure: Classification = { retryable: true, errorType: 'RATE_LIMITED', message: '429', retryAfterMs: 30_000 };
    const outcome = decide({ kind: 'failed', failure, confirmed: { untilMs: NOW + 5000, cause: 'rate-limited', dependency: 'api' } });
    expect(outcome).toMatchObject({ kind: 'copy', wait: { kind: 'deferred', cause: 'rate-limited', decision: { delaySeconds: 30, state: { attempt: 1 } } } });
  });

  it('retries a confirmed non-retryable failure never: it is dead-lettered with its own reason', () => {
    const bug: Classification = { retryable: false, reason: 'handler-bug', errorType: 'HANDLER_BUG', message: 'TypeError' };
    expect(decide({ kind: 'failed', failure: bug, confirmed: { untilMs: NOW + 5000, cause: 'breaker-open', dependency: 'api' } })).toMatchObject({
      kind: 'dead-letter',
      reason: 'handler-bug',
    });
    const invalid: Classification = { retryable: false, reason: 'non-retryable', errorType: 'HTTP_4XX', message: '400' };
    expect(decide({ kind: 'failed', failure: invalid })).toMatchObject({ kind: 'dead-letter', reason: 'non-retryable', errorType: 'HTTP_4XX' });
  });

  it('dead-letters the last attempt as max-attempts, and one past its deadline as deadline-exceeded', () => {
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { state: { attempt: 3 } })).toMatchObject({ kind: 'dead-letter', reason: 'max-attempts' });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { state: { attempt: 2 } })).toMatchObject({
      kind: 'copy',
      wait: { kind: 'retry', decision: { state: { attempt: 3 } } },
    });
    expect(decide({ kind: 'failed', failure: TIMEOUT }, { state: { firstReceivedAt: NOW - 3_600_000 } })).toMatchObject({
      kind: 'dead-letter',
      reason: 'deadline-exceeded',
    });
  });

  it('is pure: the same facts give the same outcome', () => {
    const verdict: FinalVerdict = { kind: 'failed', failure: TIMEOUT };
    expect(decide(verdict)).toEqual(decide(verdict));
  });
});

describe('decideGiveBack', () => {
  it('releases a message given back unrun, whatever the reason: visible at once, no attempt used', () => {
    for (const why of ['stopping', 'behind-its-group', 'waiting'] as const) {
      expect(decideGiveBack({ kind: 'given-back', why })).toEqual({ kind: 'release' });
    }
  });
});
