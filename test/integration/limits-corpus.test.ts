import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { readSimulationLedger } from '@requeue/local-aws/simulation-ledger';
import { NO_ROOM_FOR_REASON, REDRIVE_BACKSTOP, triageDeadLetters } from '@requeue/sqs/dead-letters';
import { describe, expect, it } from 'vitest';
import { account, type ExpectedEnd } from '../faults/accounting.js';
import { eventually } from '../support/emulator.js';
import { sendAll, type Outgoing } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** The stack's queue: SQS's 1 MiB less the 8 KiB kept for a dead letter's reason. */
const QUEUE_LIMIT = 1_040_384;
const TEN_ATTRIBUTES: Record<string, MessageAttributeValue> = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`meta${i}`, { DataType: 'String', StringValue: `v${i}` }]),
);

interface Job {
  message: Outgoing;
  end: ExpectedEnd;
}

/** A simulation body padded to `bytes` in all (its attributes counted as SQS counts them). */
function job(id: string, simulate: Record<string, unknown>, extra: { attributes?: Record<string, MessageAttributeValue>; bytes?: number } = {}): Outgoing {
  const body = JSON.stringify({ id, simulate, pad: '' });
  const padding = extra.bytes === undefined ? 0 : extra.bytes - Buffer.byteLength(body);
  return { body: JSON.stringify({ id, simulate, pad: 'x'.repeat(Math.max(0, padding)) }), ...(extra.attributes ? { attributes: extra.attributes } : {}) };
}

const succeeds = (message: Outgoing): Job => ({ message, end: { kind: 'succeeded' } });
const deadLetters = (message: Outgoing, reason: string): Job => ({ message, end: { kind: 'dead-lettered', reason } });

/**
 * The end-to-end corpus with messages at each of SQS's limits, and a dependency that
 * answers 429 with `Retry-After: 3` to some messages three times each while answering
 * the rest.
 */
function corpus(): Job[] {
  const jobs: Job[] = [];
  for (let i = 0; i < 20; i++) jobs.push(succeeds(job(`ok-${i}`, { outcome: 'ok' })));
  for (let i = 0; i < 10; i++) jobs.push(succeeds(job(`flaky-${i}`, { outcome: 'transient', failTimes: 1 + (i % 2) })));
  for (let i = 0; i < 5; i++) jobs.push(deadLetters(job(`permanent-${i}`, { outcome: 'permanent' }), 'non-retryable'));
  for (let i = 0; i < 12; i++) jobs.push(succeeds(job(`limited-${i}`, { outcome: 'rate_limit', failTimes: 3, retryAfterMs: 3000 })));
  // Ten attributes: no room for x-retry, nor for x-dead-letter.
  for (const failTimes of [1, 2])
    for (let i = 0; i < 3; i++) jobs.push(succeeds(job(`crowded-${failTimes}-${i}`, { outcome: 'transient', failTimes }, { attributes: TEN_ATTRIBUTES })));
  for (let i = 0; i < 3; i++)
    jobs.push(deadLetters(job(`crowded-permanent-${i}`, { outcome: 'permanent' }, { attributes: TEN_ATTRIBUTES }), NO_ROOM_FOR_REASON));
  // Within 1 KB of the queue's limit: a retry copy may not fit; a dead letter's reason does (the DLQ takes 8 KiB more).
  for (const under of [1000, 50]) {
    jobs.push(succeeds(job(`large-${under}-flaky`, { outcome: 'transient', failTimes: 1 }, { bytes: QUEUE_LIMIT - under })));
    jobs.push(deadLetters(job(`large-${under}-permanent`, { outcome: 'permanent' }, { bytes: QUEUE_LIMIT - under }), 'non-retryable'));
  }
  return jobs;
}

const FAST_RETRIES = JSON.stringify({
  types: { DEFAULT: { backoff: { type: 'fixed', delayMs: 1000 } }, TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 } } },
});

describe("messages at SQS's limits, on the emulator that refuses what SQS refuses", () => {
  it('every success succeeds and every dead letter reaches the DLQ by the worker with a reason triage shows; none by the redrive backstop', async () => {
    const queues = await suite.emulator.createQueues({ maxReceiveCount: 5 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-limits-')), 'ledger.jsonl');
    const worker = await suite.workerProcess(queues, { SIMULATION_LEDGER: ledger, RETRY_POLICY: FAST_RETRIES, WORKER_MAX_IN_FLIGHT: '10' });
    const jobs = corpus();
    // One a call: two messages near 1 MiB are over a batch's 1 MiB.
    for (const { message } of jobs) await sendAll(suite.emulator.sqs, queues.queueUrl, [message]);
    const expected = new Map(jobs.map((j) => [(JSON.parse(j.message.body) as { id: string }).id, j.end]));
    const deadLetterCount = jobs.filter((j) => j.end.kind === 'dead-lettered').length;

    await eventually(
      async () => {
        const [queue, dlq] = await Promise.all([suite.emulator.depth(queues.queueUrl), suite.emulator.depth(queues.dlqUrl)]);
        const done = new Set(readSimulationLedger(ledger).map((line) => line.id)).size;
        return queue.visible + queue.inFlight + queue.delayed === 0 && dlq.visible === deadLetterCount && done === jobs.length - deadLetterCount
          ? true
          : undefined;
      },
      90_000,
      'every job to end',
    ).catch(async (error: unknown) => {
      const done = new Set(readSimulationLedger(ledger).map((line) => line.id));
      const open = [...expected].filter(([id, end]) => end.kind === 'succeeded' && !done.has(id)).map(([id]) => id);
      const depths = { queue: await suite.emulator.depth(queues.queueUrl), dlq: await suite.emulator.depth(queues.dlqUrl) };
      throw new Error(`${(error as Error).message}: not yet succeeded ${JSON.stringify(open)}; ${JSON.stringify(depths)}\n${worker.output().slice(-6000)}`, {
        cause: error,
      });
    });

    const triage = await triageDeadLetters({ sqs: suite.emulator.sqs, dlqUrl: queues.dlqUrl });
    const letters = await suite.emulator.drain(queues.dlqUrl);
    const accounting = account(expected, ledger, letters);
    expect({ lost: accounting.lost, misplaced: accounting.misplaced }).toEqual({ lost: [], misplaced: [] });
    expect(accounting.deadLettered).toEqual({ 'non-retryable': 7, [NO_ROOM_FOR_REASON]: 3 });
    expect(triage.groups.map((group) => [group.reason, group.count]).sort()).toEqual([
      [NO_ROOM_FOR_REASON, 3],
      ['non-retryable', 7],
    ]);
    expect(triage.groups.some((group) => group.reason === REDRIVE_BACKSTOP)).toBe(false);

    // A letter with no room went unchanged, its ten attributes all kept; its reason is in the log, pointing at it.
    const crowded = letters.filter((letter) => letter.Body!.includes('crowded-permanent'));
    for (const letter of crowded) expect(Object.keys(letter.MessageAttributes ?? {}).sort()).toEqual(Object.keys(TEN_ATTRIBUTES).sort());
    const noRoomLines = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('"noRoom":"attributes"'));
    expect(noRoomLines).toHaveLength(3);
    for (const letter of crowded)
      expect(
        noRoomLines.some(
          (line) =>
            line.includes(`"deadLetterMessageId":"${letter.MessageId}"`) && line.includes('"reason":"non-retryable"') && line.includes('"deadLetterGroup"'),
        ),
      ).toBe(true);
    expect(worker.output()).not.toContain('already has 10 attributes');
    // No attempt went to a deferral: a job succeeds by attempt failTimes + 1 (sooner when
    // a failure came while the dependency was paused, which defers without an attempt).
    const attempts = new Map(readSimulationLedger(ledger).map((line) => [line.id, line.attempt]));
    for (const failTimes of [1, 2]) for (let i = 0; i < 3; i++) expect(attempts.get(`crowded-${failTimes}-${i}`)).toBeLessThanOrEqual(failTimes + 1);
    for (const [id, attempt] of attempts) if (id.startsWith('limited-')) expect(attempt).toBe(1);
  }, 150_000);
});
